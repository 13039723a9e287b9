import DriftCore
import Foundation
import GRDB

/// One row of `pendingEvent`: an event kept until its audience has seen it.
struct PendingEventRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "pendingEvent"

    var id: Int64?
    var bottleID: String
    var audience: String
    var at: Int64
    var event: String

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let bottleID = Column(CodingKeys.bottleID)
        static let audience = Column(CodingKeys.audience)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    var pending: PendingEvent {
        get throws {
            let row = "\(id ?? -1)"
            guard let audience = EventAudience(rawValue: audience) else {
                throw BottleStoreError.corruptRow(column: "pendingEvent.audience", row: row, problem: self.audience)
            }
            return PendingEvent(id: id ?? -1, audience: audience,
                                event: try StoredJSON.decode(DriftEvent.self, from: event, column: "pendingEvent.event", row: row))
        }
    }
}

/// Who a pending event is kept for.
public enum EventAudience: String, Sendable, Codable, CaseIterable {
    /// The bottle's creator (first open, joins, lines while away).
    case creator
    /// Everyone watching the bottle (became openable).
    case watchers
    /// The chat's participants.
    case participants
}

/// An event kept in the store until its audience fetched it; erased with its bottle.
public struct PendingEvent: Sendable, Equatable {
    /// Increasing; acknowledge with ``BottleStore/removePendingEvents(of:upTo:)``.
    public var id: Int64
    public var audience: EventAudience
    public var event: DriftEvent
}
