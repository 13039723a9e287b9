import DriftCore
import DriftSystem
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Bottle media files under the data directory: `media/bottles/{bottle}/content/…` and
/// `media/bottles/{bottle}/chat/{message}/…` (DriftCore's ``MediaPath``).
///
/// Writes are atomic and durable: the bytes go to a temporary file in the target
/// folder, which is `fsync`ed, renamed over the final name, and the folder is `fsync`ed
/// (as is the parent of every folder created on the way). A reader sees the old file
/// or the complete new one, never a torn one, also after a power cut. The database
/// keeps only the relative ``MediaPath``; this type maps it to a file.
///
/// Removal overwrites each regular file with zeros (and `fsync`s) before unlinking it.
/// On an SD card or SSD the flash translation layer may keep old blocks, so that is
/// best effort; what it guarantees is that no file under the data directory still
/// holds the bytes. Symbolic links are unlinked, never followed.
public struct MediaStore: Sendable {
    /// The data directory (absolute, or relative to the working directory).
    public let dataDirectory: String
    /// Overwrite files with zeros before unlinking them (default on).
    public let overwritesBeforeRemoving: Bool

    public init(dataDirectory: String, overwritesBeforeRemoving: Bool = true) {
        self.dataDirectory = dataDirectory.hasSuffix("/") && dataDirectory.count > 1 ? String(dataDirectory.dropLast()) : dataDirectory
        self.overwritesBeforeRemoving = overwritesBeforeRemoving
    }

    /// The file for `path`.
    public func filePath(_ path: MediaPath) -> String {
        "\(dataDirectory)/\(path.rawValue)"
    }

    /// The folder holding all of `bottle`'s media.
    public func folderPath(of bottle: BottleID) -> String {
        filePath(MediaPath.bottleFolder(bottle))
    }

    /// Writes `bytes` to `path` atomically and durably (see the type's documentation),
    /// creating folders as needed and replacing an existing file.
    /// - Throws: ``DriftSystem/SystemError`` naming the failed call and file.
    public func write(_ bytes: [UInt8], to path: MediaPath) throws(SystemError) {
        let components = path.rawValue.split(separator: "/").map(String.init)
        var directory = dataDirectory
        try Syscall.makeDirectory(directory, mode: OwnerOnlyFiles.directoryMode)
        for component in components.dropLast() {
            let child = "\(directory)/\(component)"
            if try Syscall.makeDirectory(child, mode: OwnerOnlyFiles.directoryMode) { try Syscall.syncDirectory(directory) }
            directory = child
        }
        let target = filePath(path)
        let temporary = "\(directory)/.tmp-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))-\(components.last ?? "file")"
        let descriptor = try FileDescriptor.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
                                                 mode: OwnerOnlyFiles.fileMode)
        do throws(SystemError) {
            try descriptor.writeAll(bytes)
            try descriptor.sync()
            try descriptor.close()
        } catch {
            try? descriptor.close()
            try? Syscall.unlink(temporary)
            throw error
        }
        do throws(SystemError) {
            try Syscall.rename(temporary, to: target)
        } catch {
            try? Syscall.unlink(temporary)
            throw error
        }
        try Syscall.syncDirectory(directory)
    }

    /// The whole content of the file at `path`.
    /// - Throws: ``DriftSystem/SystemError`` (`ENOENT` when missing).
    public func read(_ path: MediaPath) throws(SystemError) -> [UInt8] {
        let descriptor = try FileDescriptor.open(filePath(path), flags: O_RDONLY | O_NOFOLLOW)
        defer { try? descriptor.close() }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let outcome = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) -> Int in try descriptor.read(into: raw) ?? 0 }
            }
            let count = try outcome.get()
            if count == 0 { return result }
            result.append(contentsOf: buffer[0..<count])
        }
    }

    /// Whether a file exists at `path`.
    public func exists(_ path: MediaPath) -> Bool {
        FileManager.default.fileExists(atPath: filePath(path))
    }

    /// Removes one file (overwritten first), durably. Missing files are fine.
    public func remove(_ path: MediaPath) throws(SystemError) {
        let file = filePath(path)
        guard isEntryPresent(file) else { return }
        try removeEntry(file)
        try Syscall.syncDirectory((file as NSString).deletingLastPathComponent)
    }

    /// Removes `bottle`'s whole media folder (every file overwritten first), durably.
    /// - Returns: how many files were removed (0 when there was no folder).
    @discardableResult
    public func removeFolder(of bottle: BottleID) throws(SystemError) -> Int {
        let folder = folderPath(of: bottle)
        guard isEntryPresent(folder) else { return 0 }
        let removed = try removeEntry(folder)
        try Syscall.syncDirectory((folder as NSString).deletingLastPathComponent)
        return removed
    }

    /// Bottles that have a media folder (to find folders whose bottle is gone).
    public func bottleFolders() -> [BottleID] {
        let root = "\(dataDirectory)/media/bottles"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.compactMap(BottleID.init).sorted()
    }

    // MARK: - Removal

    private func isEntryPresent(_ path: String) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: path)) != nil
    }

    /// Removes a file, link or folder tree without following links; returns files removed.
    @discardableResult
    private func removeEntry(_ path: String) throws(SystemError) -> Int {
        // attributesOfItem uses lstat: a symbolic link reports as a link, not its target.
        let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        switch type {
        case .typeDirectory?:
            var removed = 0
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            for name in names.sorted() {
                removed += try removeEntry("\(path)/\(name)")
            }
            try Syscall.removeDirectory(path)
            return removed
        case .typeRegular?:
            if overwritesBeforeRemoving { try overwriteWithZeros(path) }
            try Syscall.unlink(path)
            return 1
        case nil:
            return 0
        default:
            try Syscall.unlink(path)
            return 1
        }
    }

    private func overwriteWithZeros(_ path: String) throws(SystemError) {
        let descriptor = try FileDescriptor.open(path, flags: O_WRONLY | O_NOFOLLOW)
        defer { try? descriptor.close() }
        var remaining = try descriptor.seekToEnd()
        try descriptor.seekToStart()
        let zeros = [UInt8](repeating: 0, count: min(remaining, 64 * 1024))
        while remaining > 0 {
            let chunk = min(remaining, zeros.count)
            try descriptor.writeAll(Array(zeros[0..<chunk]))
            remaining -= chunk
        }
        try descriptor.sync()
    }
}
