import Foundation

/// A fresh directory under the system temp dir, removed by ``remove()``.
public struct TemporaryDirectory: Sendable {
    public let path: String

    /// Creates `…/drift-<prefix>-<random>`, the owner's only (0700, like `mkdtemp`, and like
    /// driftd's data directory: `driftd selftest` fails on one others can read).
    public init(prefix: String = "test") throws {
        let base = FileManager.default.temporaryDirectory.path
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
