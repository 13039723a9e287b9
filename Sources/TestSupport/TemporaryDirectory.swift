import Foundation

/// A fresh directory for a test's files (databases, sockets, configs), removed by ``remove()``.
///
/// It lives in memory (`/dev/shm`, tmpfs) when the machine has it, else under the system temp
/// dir. Hundreds of tests open real SQLite databases at once, each commit `fdatasync`ed
/// (`synchronous=FULL`); on a disk those flushes queued behind each other and held the threads
/// that called them for seconds on a busy machine. On tmpfs the files are just as real to
/// SQLite — WAL, locks, crash recovery after SIGKILL — and a flush costs nothing. What survives
/// a power cut is not what these tests test; the image's VM test runs on a real disk.
public struct TemporaryDirectory: Sendable {
    public let path: String

    /// Where test directories are made: `/dev/shm` if it is a writable directory, else the system temp dir.
    public static let base: String = {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory), isDirectory.boolValue,
           FileManager.default.isWritableFile(atPath: "/dev/shm") {
            return "/dev/shm"
        }
        return FileManager.default.temporaryDirectory.path
    }()

    /// Creates `…/drift-<prefix>-<random>`, the owner's only (0700, like `mkdtemp`, and like
    /// driftd's data directory: `driftd selftest` fails on one others can read).
    public init(prefix: String = "test") throws {
        let base = Self.base
        path = "\(base)/drift-\(prefix)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// `path/name`.
    public func appending(_ name: String) -> String { "\(path)/\(name)" }

    /// Deletes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
