import DriftCore
import GRDB

/// One row of `bottleCondition`: a condition entry of a bottle, in the creator's order.
///
/// A password condition is stored as its ``PasswordHash`` (algorithm, iterations,
/// salt, derived key); the password itself never reaches the store.
struct ConditionRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "bottleCondition"

    var bottleID: String
    var position: Int
    var kind: String
    var definition: String
    var hint: String?

    enum Columns {
        static let bottleID = Column(CodingKeys.bottleID)
        static let position = Column(CodingKeys.position)
    }

    init(bottle: BottleID, position: Int, entry: BottleCondition) throws {
        bottleID = bottle.description
        self.position = position
        kind = entry.condition.kind.rawValue
        definition = try StoredJSON.encode(entry.condition)
        hint = entry.hint
    }

    var entry: BottleCondition {
        get throws {
            let row = "\(bottleID)#\(position)"
            let condition = try StoredJSON.decode(Condition.self, from: definition, column: "bottleCondition.definition", row: row)
            guard condition.kind.rawValue == kind else {
                throw BottleStoreError.corruptRow(column: "bottleCondition.kind", row: row,
                                                  problem: "kind \(kind) but definition is \(condition.kind.rawValue)")
            }
            return BottleCondition(condition, hint: hint)
        }
    }
}
