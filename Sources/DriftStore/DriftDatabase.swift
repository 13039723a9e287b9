import DriftCore
import DriftSystem
import Foundation
import GRDB

/// The one owner of the box's SQLite database.
///
/// Opened with WAL, `synchronous=FULL` (an acknowledged write survives power
/// loss), `secure_delete=ON` (deleted content is overwritten) and foreign keys
/// on. Migrations run in ``open(path:)`` before anything else may use it.
public final class DriftDatabase: Sendable {
    /// The GRDB writer (a pool on disk, a queue in memory).
    public let writer: any DatabaseWriter
    /// The database file, `nil` in memory.
    public let path: String?
    /// A counter per table, raised by each commit that changed it (what cached reads key on).
    public let generations = TableGenerations()
    /// Live bottles by state set, as ``BottleStore/bottles(in:)`` reads them.
    let bottleReads = GenerationCache<Set<BottleState>, [Bottle]>()
    /// Participants of a set of bottles, as ``BottleStore/participants(ofEach:)`` reads them.
    let participantReads = GenerationCache<[BottleID], [BottleID: [StoredParticipant]]>()

    private init(writer: any DatabaseWriter, path: String?) {
        self.writer = writer
        self.path = path
        writer.add(transactionObserver: generations, extent: .databaseLifetime)
    }

    /// Opens (creating if needed) the database at `path` and migrates it.
    ///
    /// The files are the owner's only, whatever the umask: its folder is made 0700 and the
    /// database file 0600 before SQLite opens it (SQLite gives `-wal` and `-shm` the
    /// database file's mode); an existing file, WAL or shared-memory file is made 0600.
    public static func open(path: String) throws -> DriftDatabase {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try OwnerOnlyFiles.makeDirectory(directory)
        }
        try OwnerOnlyFiles.makeFile(path)
        for companion in [path + "-wal", path + "-shm"] where OwnerOnlyFiles.mode(of: companion) != nil {
            try OwnerOnlyFiles.makeFile(companion)
        }
        let pool = try DatabasePool(path: path, configuration: configuration())
        // The pool turns WAL on for its writer with `synchronous = NORMAL` after our
        // `prepareDatabase` ran, so FULL has to be set again on the writer itself: with
        // NORMAL a commit is not fsync'd and a power cut loses every write since the last
        // checkpoint (the VM test's power cut showed it; readers do not matter here).
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        let database = DriftDatabase(writer: pool, path: path)
        try DriftMigrations.migrator.migrate(pool)
        return database
    }

    /// An empty, migrated in-memory database (unit tests).
    public static func inMemory() throws -> DriftDatabase {
        let queue = try DatabaseQueue(configuration: configuration())
        try DriftMigrations.migrator.migrate(queue)
        return DriftDatabase(writer: queue, path: nil)
    }

    static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA secure_delete = ON")
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        return configuration
    }

    /// `PRAGMA synchronous` of the connection that writes (2 = FULL): what decides whether
    /// an acknowledged commit survives a power cut.
    public func writerSynchronous() throws -> Int {
        try writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// `PRAGMA integrity_check`: `"ok"` for a sound database.
    public func integrityCheck() throws -> String {
        try writer.read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
        }
    }

    /// Checkpoints the WAL into the database and truncates it to zero bytes.
    public func checkpointAndTruncateWAL() throws {
        guard let pool = writer as? DatabasePool else { return }
        try pool.writeWithoutTransaction { db in
            _ = try db.checkpoint(.truncate)
        }
    }
}
