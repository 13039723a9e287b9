import DriftStore
import Foundation
import GRDB
import TestSupport
import Testing

@Suite("Database setup")
struct DriftDatabaseTests {
    @Test("on disk: WAL, synchronous FULL, secure_delete, foreign keys, migrated")
    func pragmas() throws {
        // The readers' settings below say nothing about durability: only the connection that
        // commits decides whether a commit is fsync'd. The pool turns WAL on with NORMAL on
        // that one connection, which lost every commit since the last checkpoint in a power cut.
        let directory = try TemporaryDirectory(prefix: "db")
        defer { directory.remove() }
        let database = try DriftDatabase.open(path: directory.appending("data/drift.sqlite"))
        let (journal, synchronous, secureDelete, foreignKeys, hasTable) = try database.writer.read { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                try Int.fetchOne(db, sql: "PRAGMA secure_delete"),
                try Int.fetchOne(db, sql: "PRAGMA foreign_keys"),
                try db.tableExists("boxState")
            )
        }
        #expect(journal == "wal")
        #expect(synchronous == 2)
        #expect(try database.writerSynchronous() == 2)
        let writerJournal = try database.writer.writeWithoutTransaction { db in
            try String.fetchOne(db, sql: "PRAGMA journal_mode")
        }
        #expect(writerJournal == "wal")
        #expect(secureDelete == 1)
        #expect(foreignKeys == 1)
        #expect(hasTable)
        #expect(try database.integrityCheck() == "ok")
    }

    @Test("reopening an existing database keeps the writer at synchronous FULL")
    func reopenedWriterIsFull() throws {
        let directory = try TemporaryDirectory(prefix: "db")
        defer { directory.remove() }
        let path = directory.appending("drift.sqlite")
        _ = try DriftDatabase.open(path: path)
        let reopened = try DriftDatabase.open(path: path)
        #expect(try reopened.writerSynchronous() == 2)
    }

    @Test("box state survives reopening; valueOrInsert keeps the first value")
    func boxStatePersists() throws {
        let directory = try TemporaryDirectory(prefix: "db")
        defer { directory.remove() }
        let path = directory.appending("drift.sqlite")
        do {
            let store = BoxStateStore(database: try DriftDatabase.open(path: path))
            #expect(try store.valueOrInsert(for: "box.id") { "first" } == "first")
            #expect(try store.valueOrInsert(for: "box.id") { "second" } == "first")
            try store.set("x", for: "note")
        }
        let reopened = BoxStateStore(database: try DriftDatabase.open(path: path))
        #expect(try reopened.value(for: "box.id") == "first")
        #expect(try reopened.value(for: "note") == "x")
        #expect(try reopened.value(for: "missing") == nil)
    }

    @Test("checkpoint with truncation empties the WAL file")
    func walTruncation() throws {
        let directory = try TemporaryDirectory(prefix: "db")
        defer { directory.remove() }
        let path = directory.appending("drift.sqlite")
        let database = try DriftDatabase.open(path: path)
        let store = BoxStateStore(database: database)
        for index in 0..<200 { try store.set(String(repeating: "w", count: 500), for: "k\(index)") }
        let before = (try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(before > 0)
        try database.checkpointAndTruncateWAL()
        let after = (try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? -1
        #expect(after == 0)
    }
}
