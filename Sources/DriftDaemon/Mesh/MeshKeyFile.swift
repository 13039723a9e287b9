import Foundation

/// The box's mesh private key on disk: `<data_dir>/mesh.key`, 32 raw bytes, mode 0600.
///
/// Made once, on the first start (or by the first-boot unit), and kept: the box's mesh
/// address is derived from it, so losing it makes the box a stranger to its neighbours.
/// A file of the wrong size is an error, never silently replaced.
public enum MeshKeyFile {
    /// Why the key file cannot be used.
    public struct Problem: Error, CustomStringConvertible {
        public var description: String
    }

    public static let name = "mesh.key"
    public static let byteCount = 32

    /// The key in `directory`, made from `generate` (and written 0600 atomically) when absent.
    public static func loadOrCreate(in directory: String, generate: () -> [UInt8]) throws(Problem) -> (bytes: [UInt8], created: Bool) {
        let path = directory + "/" + name
        if FileManager.default.fileExists(atPath: path) {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Problem(description: "\(path) exists but cannot be read by this user")
            }
            guard data.count == byteCount else {
                throw Problem(description: "\(path) holds \(data.count) bytes, not \(byteCount): restore it from a backup or delete it to make the box a new mesh node")
            }
            return (Array(data), false)
        }
        let bytes = generate()
        precondition(bytes.count == byteCount, "a mesh key is 32 bytes")
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
            throw Problem(description: "cannot write \(temporary)")
        }
        do {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
            try handle.synchronize()
            try handle.close()
            try FileManager.default.moveItem(atPath: temporary, toPath: path)
        } catch {
            throw Problem(description: "cannot store \(path): \(error.localizedDescription)")
        }
        return (bytes, true)
    }
}
