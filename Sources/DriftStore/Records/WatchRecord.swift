import DriftCore
import GRDB

/// One row of `watch`.
struct WatchRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "watch"

    var bottleID: String
    var watcher: String
    var createdAt: Int64

    enum Columns {
        static let bottleID = Column(CodingKeys.bottleID)
        static let watcher = Column(CodingKeys.watcher)
        static let createdAt = Column(CodingKeys.createdAt)
    }

    init(_ watch: Watch) {
        bottleID = watch.bottle.description
        watcher = watch.watcher.hex
        createdAt = StoredTime.milliseconds(watch.createdAt)
    }

    var watch: Watch {
        get throws {
            guard let bottle = BottleID(bottleID) else {
                throw BottleStoreError.corruptRow(column: "watch.bottleID", row: bottleID, problem: "not a UUID")
            }
            do throws(DomainValidationError) {
                return Watch(bottle: bottle, watcher: try TokenHash(hex: watcher), createdAt: StoredTime.date(createdAt))
            } catch {
                throw BottleStoreError.corruptRow(column: "watch.watcher", row: bottleID, problem: error.description)
            }
        }
    }
}
