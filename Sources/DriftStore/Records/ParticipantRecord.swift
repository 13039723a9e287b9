import DriftCore
import Foundation
import GRDB

/// One row of `participant`: a pseudonym that has been inside a bottle's chat.
struct ParticipantRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "participant"

    var bottleID: String
    var participant: String
    var joinedAt: Int64
    var lastSeenAt: Int64
    var boxID: String?
    var label: String?

    enum Columns {
        static let bottleID = Column(CodingKeys.bottleID)
        static let participant = Column(CodingKeys.participant)
        static let joinedAt = Column(CodingKeys.joinedAt)
    }

    var participantInfo: StoredParticipant {
        get throws {
            let row = "\(bottleID)/\(participant)"
            do throws(DomainValidationError) {
                var box: BoxID?
                if let boxID { box = try BoxID(boxID) }
                return StoredParticipant(
                    participant: try ParticipantID(hex: participant), joinedAt: StoredTime.date(joinedAt),
                    lastSeenAt: StoredTime.date(lastSeenAt), box: box,
                    label: label.flatMap(ParticipantLabel.init(rawValue:)))
            } catch {
                throw BottleStoreError.corruptRow(column: "participant", row: row, problem: error.description)
            }
        }
    }
}

/// A participant of a bottle's chat as the store keeps it (no token, only the pseudonym).
public struct StoredParticipant: Sendable, Equatable {
    public var participant: ParticipantID
    /// First time they entered.
    public var joinedAt: Date
    /// Last time they entered or were seen inside.
    public var lastSeenAt: Date
    /// The box they came through (this box for local visitors), when known.
    public var box: BoxID?
    /// Their label relative to the bottle, when known.
    public var label: ParticipantLabel?
}
