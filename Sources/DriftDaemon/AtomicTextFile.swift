import DriftSystem
import Foundation

/// A small text file replaced atomically: written to `<path>.tmp`, then renamed over `path`.
enum AtomicTextFile {
    struct Failure: Error, Sendable, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "cannot write \(path): \(reason)" }
    }

    /// Writes `text` with permissions `mode` (the access point's files hold the passphrase: 0640).
    static func write(_ text: String, to path: String, mode: Int) throws(Failure) {
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: mode]) else {
            throw Failure(path: temporary, reason: "cannot create the file")
        }
        do throws(SystemError) {
            try Syscall.rename(temporary, to: path)
        } catch {
            throw Failure(path: path, reason: "\(error)")
        }
    }
}
