import Foundation

/// Finds the board profile named by `box.board`.
///
/// Search order: `box.board_dir` (relative to the config file's directory), the
/// config file's own directory, `<config dir>/board`, then the system directories
/// (normally `/usr/share/driftd/board`). A value ending in `.toml` is a path
/// instead (relative to the config file's directory).
enum BoardLocator {
    enum Location: Equatable {
        case found(path: String)
        /// A name that no search directory has; `available` lists profile names that do exist.
        case notFound(searched: [String], available: [String])
        /// An explicit `.toml` path that does not exist.
        case missingFile(path: String)
    }

    /// Board names are letters, digits, `.`, `_` and `-`, or a path ending in `.toml`.
    static func nameProblem(_ board: String) -> ValueProblem? {
        if board.isEmpty { return ValueProblem("must name a board profile (`sim`, `rpi4b`, …)") }
        if board.hasSuffix(".toml") { return nil }
        let isName = !board.hasPrefix(".") && board.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == ".")
        }
        return isName ? nil : ValueProblem(
            "must be a board name (letters, digits, `-`, `_`, `.`) or a path ending in `.toml`, found `\(board)`")
    }

    static func locate(
        board: String, boardDir: String?, configDirectory: String?, systemDirectories: [String]
    ) -> Location {
        let base = configDirectory ?? "."
        if board.hasSuffix(".toml") {
            let path = resolve(board, relativeTo: base)
            return isFile(path) ? .found(path: path) : .missingFile(path: path)
        }
        var directories: [String] = []
        if let boardDir, !boardDir.isEmpty { directories.append(resolve(boardDir, relativeTo: base)) }
        directories.append(base)
        directories.append(join(base, "board"))
        directories.append(contentsOf: systemDirectories)
        var unique: [String] = []
        for directory in directories where !unique.contains(directory) { unique.append(directory) }

        for directory in unique {
            let candidate = join(directory, board + ".toml")
            if isFile(candidate) { return .found(path: candidate) }
        }
        let available = unique.flatMap { directory in
            ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
                .filter { $0.hasSuffix(".toml") }
                .map { String($0.dropLast(5)) }
        }
        return .notFound(searched: unique, available: Array(Set(available)).sorted())
    }

    /// True when both paths name the same file (after resolving symlinks and `..`).
    static func isSameFile(_ a: String, _ b: String) -> Bool {
        canonical(a) == canonical(b)
    }

    static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    static func resolve(_ path: String, relativeTo base: String) -> String {
        path.hasPrefix("/") ? path : join(base, path)
    }

    static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty || directory == "." { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// The directory part of `path` (`.` for a bare file name).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    private static func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
}
