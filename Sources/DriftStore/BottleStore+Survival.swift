import DriftCore
import Foundation
import GRDB

extension BottleStore {
    /// The persisted chat survival state of an opened bottle.
    public func survival(of bottle: BottleID) throws -> ChatSurvival? {
        try database.writer.read { db in
            try SurvivalRecord.fetchOne(db, key: bottle.description).map {
                try StoredJSON.decode(ChatSurvival.self, from: $0.state, column: "chatSurvival.state", row: $0.bottleID)
            }
        }
    }

    /// Every persisted survival state, by bottle (for ``ChatSurvival/resume(at:)`` at start-up).
    public func survivals() throws -> [BottleID: ChatSurvival] {
        try database.writer.read { db in
            var result: [BottleID: ChatSurvival] = [:]
            for record in try SurvivalRecord.fetchAll(db) {
                guard let id = BottleID(record.bottleID) else {
                    throw BottleStoreError.corruptRow(column: "chatSurvival.bottleID", row: record.bottleID, problem: "not a UUID")
                }
                result[id] = try StoredJSON.decode(ChatSurvival.self, from: record.state, column: "chatSurvival.state", row: record.bottleID)
            }
            return result
        }
    }

    /// Saves a chat's survival state together with the lifecycle transitions its last call
    /// returned, in one transaction, so the bottle's state and its survival state never disagree.
    ///
    /// Each `.transition(trigger, at:)` action is applied in order through the ``Lifecycle``
    /// table (its `at` may lie in the past after a restart); `.keeperChanged` actions need
    /// nothing here (the keeper is part of `survival`).
    /// - Returns: the bottle after the transitions.
    /// - Throws: ``BottleStoreError/notFound(_:)``, ``BottleStoreError/lifecycle(_:_:)``
    ///   (nothing is saved then).
    @discardableResult
    public func commit(_ survival: ChatSurvival, actions: [ChatSurvival.Action], of id: BottleID, at now: Date) throws -> Bottle {
        try database.writer.write { db in
            var bottle = try Self.requireBottle(db, id: id)
            for action in actions {
                guard case .transition(let trigger, let time) = action else { continue }
                do throws(LifecycleError) { try bottle.apply(trigger, at: StoredTime.normalised(time)) } catch {
                    throw BottleStoreError.lifecycle(id, error)
                }
            }
            try BottleRecord(bottle).update(db)
            try Self.saveSurvival(db, survival, of: id, at: StoredTime.normalised(now))
            return bottle
        }
    }

    static func saveSurvival(_ db: Database, _ survival: ChatSurvival, of bottle: BottleID, at now: Date) throws {
        try SurvivalRecord(bottleID: bottle.description, state: try StoredJSON.encode(survival),
                           nextDeadline: survival.nextDeadline.map(StoredTime.milliseconds),
                           updatedAt: StoredTime.milliseconds(now)).save(db)
    }
}
