import GRDB
import Synchronization

/// A counter per table, raised by every committed transaction that changed a row of it: what
/// tells a cached read whether the rows it was made from may have changed since.
///
/// Installed on the database's one writer (``DriftDatabase``), so it sees every write the
/// daemon makes — the daemon is the database's only writer. Callbacks run on the writer's
/// queue, one transaction at a time; ``generation(of:)`` may be called from any thread.
///
/// The tables come from what GRDB asks before each write statement runs
/// (``observes(eventsOfKind:)``, from SQLite's authorizer): every table the statement may
/// write, including rows a foreign-key action deletes and tables `WITHOUT ROWID`, which
/// SQLite's per-row update hook does not report. Answering `false` there keeps GRDB from
/// reporting rows one by one: only the commit is needed.
///
/// A reader takes the generation *before* its read transaction begins: whatever it then
/// reads is at least as new as that generation, so a cache filled under it is never newer
/// than its key claims, only sometimes older — which costs one read more, never a stale
/// answer.
public final class TableGenerations: TransactionObserver, @unchecked Sendable {
    /// Tables changed by the transaction under way; touched only on the writer's queue.
    private var changed: Set<String> = []
    private let counts = Mutex<[String: UInt64]>([:])

    init() {}

    /// The sum of the counters of `tables`: it changes exactly when one of them was
    /// committed to (every counter only ever grows).
    public func generation(of tables: [String]) -> UInt64 {
        counts.withLock { counts in tables.reduce(0) { $0 &+ (counts[$1] ?? 0) } }
    }

    public func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        changed.insert(eventKind.tableName)
        return false
    }

    public func databaseDidChange(with event: DatabaseEvent) {}

    public func databaseDidCommit(_ db: Database) {
        guard !changed.isEmpty else { return }
        let tables = changed
        changed.removeAll(keepingCapacity: true)
        counts.withLock { counts in
            for table in tables { counts[table, default: 0] &+= 1 }
        }
    }

    public func databaseDidRollback(_ db: Database) {
        changed.removeAll(keepingCapacity: true)
    }
}

/// Reads kept while the tables they came from are unchanged (``TableGenerations``): the
/// visitor list reads every live bottle, its conditions and its chats' participants on each
/// request, a few times a second from a crowd, while those rows change a few times a minute.
/// At most ``capacity`` keys are kept; past that the cache starts over.
final class GenerationCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let entries = Mutex<[Key: (generation: UInt64, value: Value)]>([:])
    private let capacity: Int
    /// Reads made because nothing fit (for tests).
    let misses = Mutex(0)

    init(capacity: Int = 16) {
        self.capacity = capacity
    }

    /// The value kept for `key` at `generation`, or `read()`'s, kept for the next caller.
    func value(for key: Key, at generation: UInt64, read: () throws -> Value) rethrows -> Value {
        if let kept = entries.withLock({ $0[key] }), kept.generation == generation { return kept.value }
        let value = try read()
        misses.withLock { $0 += 1 }
        entries.withLock { entries in
            if entries.count >= capacity, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = (generation, value)
        }
        return value
    }
}
