import Foundation

/// A fresh directory under the system temp dir, removed by ``remove()``.
public struct TemporaryDirectory: Sendable {
    public let path: String

    /// Creates `…/drift-<prefix>-<random>`.
    public init(prefix: String = "test") throws {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/drift-\(prefix)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// `path/name`.
    public func appending(_ name: String) -> String { "\(path)/\(name)" }

    /// Deletes the directory and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
