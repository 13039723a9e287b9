#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The data directory holds the box secret (the key behind every pseudonym), bottle texts,
/// chat lines and media: only the daemon's user may read any of it, whatever umask the
/// daemon was started with (`make run`, a tester's shell and other inits set none).
///
/// Directories are 0700 and files 0600 by construction: the daemon sets its umask to
/// ``umask`` at start, creates with these modes and `fchmod`s after creating, and
/// ``tighten(_:)`` takes group and other bits off whatever an older version, a tester's
/// `mkdir` or an image left behind.
public enum OwnerOnlyFiles {
    /// Mode of every directory the daemon makes under its data directory.
    public static let directoryMode: mode_t = 0o700
    /// Mode of every file the daemon writes under its data directory.
    public static let fileMode: mode_t = 0o600
    /// The process umask the daemon runs with: nothing for group or others.
    public static let umask: mode_t = 0o077

    /// Sets the process umask to ``umask`` and returns the previous one.
    @discardableResult
    public static func restrictUmask() -> mode_t {
        #if canImport(Glibc) || canImport(Musl)
        Glibc.umask(umask)
        #else
        Darwin.umask(umask)
        #endif
    }

    /// The permission bits of `path` (not following a final symbolic link), or `nil` if it
    /// does not exist.
    public static func mode(of path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// Whether `mode` lets anyone but the owner in.
    public static func exposes(_ mode: mode_t) -> Bool { mode & 0o077 != 0 }

    /// Creates `path` as a directory with ``directoryMode`` (and its missing parents, which get
    /// the same mode), or takes group and other bits off an existing one.
    /// - Throws: ``SystemError`` when it cannot be created or is not a directory.
    public static func makeDirectory(_ path: String) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if component == "." || component == ".." { continue }
            _ = try Syscall.makeDirectory(prefix, mode: directoryMode)
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw SystemError(operation: "lstat", errno: Syscall.errno, subject: path) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw SystemError(operation: "mkdir", errno: ENOTDIR, subject: path) }
        try restrict(path, info: info, to: directoryMode)
    }

    /// Creates the file at `path` empty with ``fileMode`` if it does not exist, or takes group
    /// and other bits off it if it does (never following a symbolic link).
    public static func makeFile(_ path: String) throws(SystemError) {
        let descriptor = try FileDescriptor.open(path, flags: O_RDWR | O_CREAT | O_NOFOLLOW, mode: fileMode)
        defer { try? descriptor.close() }
        try Syscall.retryingEINTR("fchmod", subject: path) { fchmod(descriptor.rawValue, fileMode) }
    }

    /// Takes group and other bits off `directory` and everything below it that this user owns:
    /// directories become at most 0700, files at most 0600. Symbolic links are not followed.
    /// - Returns: how many entries were changed.
    @discardableResult
    public static func tighten(_ directory: String) -> Int {
        var changed = 0
        var info = stat()
        guard lstat(directory, &info) == 0 else { return 0 }
        changed += (try? restrict(directory, info: info, to: directoryMode)) == true ? 1 : 0
        guard info.st_mode & S_IFMT == S_IFDIR, let stream = opendir(directory) else { return changed }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            let child = directory + "/" + name
            guard lstat(child, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: changed += tighten(child)
            case S_IFREG: changed += (try? restrict(child, info: info, to: fileMode)) == true ? 1 : 0
            default: continue  // sockets are made 0600 by their owner; links are never followed
            }
        }
        return changed
    }

    /// The directories and files at and below `directory` that others may enter or read, as
    /// paths relative to it (`.` for `directory` itself) with their modes, in path order.
    /// Symbolic links are not followed; sockets and other special files are left out.
    public static func exposed(under directory: String) -> [(path: String, mode: mode_t)] {
        var found: [(path: String, mode: mode_t)] = []
        func walk(_ path: String, relative: String) {
            var info = stat()
            guard lstat(path, &info) == 0 else { return }
            let kind = info.st_mode & S_IFMT
            guard kind == S_IFDIR || kind == S_IFREG else { return }
            if exposes(info.st_mode & 0o7777) { found.append((relative, info.st_mode & 0o7777)) }
            guard kind == S_IFDIR, let stream = opendir(path) else { return }
            defer { closedir(stream) }
            var names: [String] = []
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if name != ".", name != ".." { names.append(name) }
            }
            for name in names.sorted() {
                walk(path + "/" + name, relative: relative == "." ? name : relative + "/" + name)
            }
        }
        walk(directory, relative: ".")
        return found
    }

    /// chmod to `mode` if `info` shows group or other bits and this user owns the entry.
    @discardableResult
    private static func restrict(_ path: String, info: stat, to mode: mode_t) throws(SystemError) -> Bool {
        guard exposes(info.st_mode & 0o7777), info.st_uid == geteuid() else { return false }
        try Syscall.retryingEINTR("chmod", subject: path) { chmod(path, mode) }
        return true
    }
}
