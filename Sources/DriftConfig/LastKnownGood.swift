import Foundation

/// The copy of the last valid effective configuration, kept in the data directory.
///
/// When the file on the config partition is invalid, driftd runs this copy instead
/// (and reports the problem loudly). The copy is the merged text, so it still loads
/// if the board profile it was merged from changes.
public struct LastKnownGood: Sendable, Equatable {
    public static let fileName = "driftd.last-good.toml"

    public var directory: String

    /// `<directory>/driftd.last-good.toml`.
    public var path: String { BoardLocator.join(directory, Self.fileName) }

    public init(directory: String) {
        self.directory = directory
    }

    /// Saves `loaded.effectiveText`; returns false when the saved copy already has that text.
    @discardableResult
    public func save(_ loaded: LoadedConfiguration) throws(LastKnownGoodError) -> Bool {
        try save(text: loaded.effectiveText)
    }

    /// Writes `text` atomically: a temporary file in the same directory, fsync, rename over the
    /// old copy, then fsync of the directory; mode 0600 (the file holds the mesh key). The data
    /// directory is created if missing. Nothing is written when the copy is already `text`,
    /// to spare the SD card.
    @discardableResult
    public func save(text: String) throws(LastKnownGoodError) -> Bool {
        let fileManager = FileManager.default
        if let existing = try? String(contentsOfFile: path, encoding: .utf8), existing == text {
            return false
        }
        do {
            // The data directory is the owner's only (driftd makes it 0700 too).
            try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw LastKnownGoodError(path: directory, operation: "create directory", reason: error.localizedDescription)
        }
        do {
            // Foundation's atomic write creates a temporary file next to the target, fsyncs it and
            // renames it into place (checked with strace on Linux).
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw LastKnownGoodError(path: path, operation: "write", reason: error.localizedDescription)
        }
        do {
            try fileManager.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        } catch {
            throw LastKnownGoodError(path: path, operation: "chmod", reason: error.localizedDescription)
        }
        // Make the rename itself durable. Best effort: some file systems refuse fsync on directories.
        if let handle = FileHandle(forReadingAtPath: directory) {
            try? handle.synchronize()
            try? handle.close()
        }
        return true
    }

    /// True when a saved copy exists.
    public var exists: Bool {
        FileManager.default.fileExists(atPath: path)
    }

    /// Loads the saved copy like any config file; a missing copy is an `.unreadable` issue.
    public func load(using loader: ConfigLoader = ConfigLoader()) throws(ConfigError) -> LoadedConfiguration {
        guard exists else {
            throw ConfigError(issues: [ConfigIssue(
                file: path, key: "", kind: .unreadable,
                message: "no last known good configuration to fall back to (none was saved yet)")])
        }
        return try loader.load(path: path)
    }
}

/// Saving the last known good copy failed.
public struct LastKnownGoodError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var operation: String
    public var reason: String

    public init(path: String, operation: String, reason: String) {
        self.path = path
        self.operation = operation
        self.reason = reason
    }

    public var description: String {
        "cannot save the last known good configuration (\(operation) \(path)): \(reason)"
    }
}
