import DriftMesh
import DriftStore
import Foundation

/// The camp directory as `camp.list` and `GET /api/v1/camps` show it.
public struct CampListing: Codable, Sendable, Equatable {
    /// One camp, most recently heard first.
    public struct Camp: Codable, Sendable, Equatable {
        public var node: String
        public var name: String
        public var latitude: Double?
        public var longitude: Double?
        /// From this box, when both positions are known.
        public var distanceMeters: Double?
        public var members: Int
        public var note: String
        public var firstSeen: Date
        public var lastSeen: Date
        public var lastKind: String
    }

    /// A recent chat line, request, event or emergency, newest first.
    public struct Message: Codable, Sendable, Equatable {
        public var node: String
        public var camp: String
        /// `chat`, `request`, `event` or `emergency`.
        public var kind: String
        /// The resource, the emergency's kind or the event's title.
        public var detail: String
        public var text: String
        public var latitude: Double?
        public var longitude: Double?
        public var eventStart: Date?
        public var eventMinutes: Int?
        public var receivedAt: Date
        public var expiresAt: Date
        public var fromMe: Bool
    }

    /// This box's camp name, empty when it is no camp.
    public var me: String
    public var camps: [Camp]
    public var messages: [Message]

    /// No camps, no messages (no camp service).
    public static let empty = CampListing(me: "", camps: [], messages: [], here: nil)

    public init(me: String, camps: [CampRecord], messages: [CampMessageRecord], here: CampPosition?) {
        self.me = me
        self.camps = camps.map { camp in
            Camp(node: "\(camp.node)", name: camp.name, latitude: camp.position?.latitude, longitude: camp.position?.longitude,
                 distanceMeters: Self.distance(here, camp.position), members: camp.members, note: camp.note,
                 firstSeen: camp.firstSeen, lastSeen: camp.lastSeen, lastKind: camp.lastKind)
        }
        self.messages = messages.map { message in
            Message(node: "\(message.node)", camp: message.camp, kind: message.kind.description, detail: message.detail, text: message.text,
                    latitude: message.position?.latitude, longitude: message.position?.longitude, eventStart: message.eventStart,
                    eventMinutes: message.eventMinutes, receivedAt: message.receivedAt, expiresAt: message.expiresAt, fromMe: message.fromMe)
        }
    }

    /// Great-circle distance in whole metres (haversine).
    static func distance(_ a: CampPosition?, _ b: CampPosition?) -> Double? {
        guard let a, let b else { return nil }
        let radius = 6_371_008.8
        let φ1 = a.latitude * .pi / 180, φ2 = b.latitude * .pi / 180
        let dφ = φ2 - φ1, dλ = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return (2 * radius * asin(min(1, sqrt(h)))).rounded()
    }
}
