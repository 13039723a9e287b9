import GRDB

/// One row of `chatSurvival`: the persisted ``DriftCore/ChatSurvival`` of an opened bottle.
struct SurvivalRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "chatSurvival"

    var bottleID: String
    var state: String
    var nextDeadline: Int64?
    var updatedAt: Int64
}
