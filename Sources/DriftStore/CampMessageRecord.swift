import DriftMesh
import Foundation

/// A camp chat line, request, event or emergency kept in the store until it expires.
public struct CampMessageRecord: Sendable, Hashable {
    /// Row id (assigned by the store; newer rows have larger ids).
    public var id: Int64
    /// The box it came from (this box's own node id for what it sent).
    public var node: NodeID
    /// The sending camp's name as known when it arrived (may be empty).
    public var camp: String
    /// `chat`, `request`, `event` or `emergency`.
    public var kind: CampMessage.Kind
    /// The request's resource, the emergency's kind or the event's title; empty for chat.
    public var detail: String
    public var text: String
    /// An emergency's position.
    public var position: CampPosition?
    /// An event's start and duration.
    public var eventStart: Date?
    public var eventMinutes: Int?
    public var receivedAt: Date
    public var expiresAt: Date
    /// Sent by this box.
    public var fromMe: Bool

    /// The record of `message` (chat, request, event or emergency; `nil` for ping and announce).
    public init?(message: CampMessage, node: NodeID, camp: String, receivedAt: Date, expiresAt: Date, fromMe: Bool) {
        self.id = 0
        self.node = node
        self.camp = camp
        self.kind = message.kind
        self.receivedAt = receivedAt
        self.expiresAt = max(expiresAt, receivedAt)
        self.fromMe = fromMe
        switch message {
        case .ping, .announce:
            return nil
        case .chat(let chat):
            detail = ""
            text = chat.text
            if !chat.camp.isEmpty { self.camp = chat.camp }
        case .request(let request):
            detail = request.resource.description
            text = request.text
        case .event(let event):
            detail = event.title
            text = event.text
            eventStart = Date(timeIntervalSince1970: Double(event.startMinute) * 60)
            eventMinutes = Int(event.durationMinutes)
        case .emergency(let emergency):
            detail = emergency.emergency.description
            text = emergency.text
            position = emergency.position
        }
    }

    init(id: Int64, node: NodeID, camp: String, kind: CampMessage.Kind, detail: String, text: String, position: CampPosition?,
         eventStart: Date?, eventMinutes: Int?, receivedAt: Date, expiresAt: Date, fromMe: Bool) {
        self.id = id
        self.node = node
        self.camp = camp
        self.kind = kind
        self.detail = detail
        self.text = text
        self.position = position
        self.eventStart = eventStart
        self.eventMinutes = eventMinutes
        self.receivedAt = receivedAt
        self.expiresAt = expiresAt
        self.fromMe = fromMe
    }
}
