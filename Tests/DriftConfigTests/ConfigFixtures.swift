import DriftConfig
import Foundation

/// Paths into the repository and scratch directories for the configuration tests.
enum ConfigFixtures {
    /// The repository root, found from this file's path.
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static let boardDirectory = repositoryRoot + "/board"

    static let boardNames = ["sim", "rpi4b", "rpi5", "rpi-zero2w", "x86_64-qemu", "x86-vm"]

    static func boardPath(_ name: String) -> String {
        boardDirectory + "/\(name).toml"
    }

    static func boardText(_ name: String) throws -> String {
        try String(contentsOfFile: boardPath(name), encoding: .utf8)
    }

    /// A loader that never looks at `/usr/share/driftd/board`, so results do not depend on the machine.
    static let loader = ConfigLoader(systemBoardDirectories: [])

    /// 1-based line of the first line of `text` containing `needle`.
    static func line(of needle: String, in text: String) -> Int? {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .firstIndex { $0.contains(needle) }
            .map { $0 + 1 }
    }

    /// `sim.toml` with `replacements` applied (each `old` must occur).
    /// The sim profile with `replacements` applied, loaded (throws on an invalid result).
    static func simConfig(replacing replacements: [(String, String)] = []) throws -> DriftConfiguration {
        try loader.load(text: try simText(replacing: replacements), fileName: "driftd.toml",
                        baseDirectory: "/nonexistent-drift-dir").configuration
    }

    /// What validation says of the sim profile with `replacements` applied (empty: valid).
    static func simIssues(replacing replacements: [(String, String)]) throws -> [ConfigIssue] {
        let text = try simText(replacing: replacements)
        do {
            _ = try loader.load(text: text, fileName: "driftd.toml", baseDirectory: "/nonexistent-drift-dir")
            return []
        } catch {
            return error.issues
        }
    }

    static func simText(replacing replacements: [(String, String)] = []) throws -> String {
        var text = try boardText("sim")
        for (old, new) in replacements {
            precondition(text.contains(old), "fixture text lacks \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return text
    }
}

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct ScratchDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("drift-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let file = path + "/" + name
        let directory = (file as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try text.write(toFile: file, atomically: false, encoding: .utf8)
        return file
    }

    /// Copies a repository board profile into `subdirectory` of this directory.
    @discardableResult
    func copyBoard(_ name: String, into subdirectory: String = "board") throws -> String {
        try write("\(subdirectory)/\(name).toml", ConfigFixtures.boardText(name))
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
