import CDriftSys

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the process holds in memory, and giving back what an idle box no longer runs.
///
/// A box starts with a burst of code it never runs again (configuration, migrations, the
/// first GPS fix, start-up of every service). The kernel maps a program's pages 64 KiB at a
/// time around each page touched, so that burst leaves megabytes of code mapped for the rest
/// of the box's life, and pages a process maps are the last the kernel reclaims.
/// ``trim()`` unmaps the clean file-backed pages (code and read-only data of the executable
/// and its libraries) and hands glibc's free heap back: the pages stay in the page cache, now
/// unmapped and the first to go when memory runs short, and the code an idle box still runs
/// is mapped again at its next run from the cache (a minor fault, no I/O).
public enum ResidentMemory {
    /// One mapping of `/proc/self/smaps`.
    public struct Mapping: Sendable, Hashable {
        public var start: UInt
        public var end: UInt
        /// `r-xp` and the like.
        public var permissions: String
        /// The mapped file, or `[heap]`, `[stack]`, "" for anonymous memory.
        public var path: String
        /// Resident, in KiB.
        public var residentKiB: Int
        /// Private copies of pages (written, or never backed by a file), in KiB.
        public var anonymousKiB: Int
        /// The kernel's flags for the mapping (`VmFlags:`: `rd ex mr …`).
        public var flags: [String]

        public init(start: UInt, end: UInt, permissions: String, path: String, residentKiB: Int = 0, anonymousKiB: Int = 0,
                    flags: [String] = []) {
            self.start = start
            self.end = end
            self.permissions = permissions
            self.path = path
            self.residentKiB = residentKiB
            self.anonymousKiB = anonymousKiB
            self.flags = flags
        }

        /// Whether ``trim()`` may unmap its pages: a private mapping of a file, not writable,
        /// with no page of its own (a relocated `.data.rel.ro` is read-only but its pages were
        /// written before `mprotect`: unmapped, they would come back unrelocated from the file),
        /// not locked, and holding something.
        public var isDroppable: Bool {
            let p = Array(permissions)
            guard p.count == 4, p[0] == "r", p[1] == "-", p[3] == "p" else { return false }
            return path.hasPrefix("/") && !path.hasSuffix(" (deleted)") && anonymousKiB == 0 && residentKiB > 0
                && !flags.contains("lo")
        }
    }

    /// The mappings ``trim()`` unmaps: the ``Mapping/isDroppable`` ones of loaded programs and
    /// libraries only, that is of files with an executable mapping too. A data file mapped
    /// read-only (none is today) could be unmapped by another thread between the read of smaps
    /// and the `madvise`, and its addresses reused for anonymous memory, which `MADV_DONTNEED`
    /// would then zero; the executable and its libraries stay mapped for the process's life.
    public static func droppable(in mappings: [Mapping]) -> [Mapping] {
        let code = Set(mappings.filter { $0.permissions.hasPrefix("r-x") && $0.path.hasPrefix("/") }.map(\.path))
        return mappings.filter { $0.isDroppable && code.contains($0.path) }
    }

    /// The mappings of a `/proc/PID/smaps` text, in order.
    public static func parseSmaps(_ text: String) -> [Mapping] {
        var mappings: [Mapping] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if let header = header(line) {
                mappings.append(header)
                continue
            }
            guard !mappings.isEmpty, let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon]
            let value = line[line.index(after: colon)...]
            switch key {
            case "Rss": mappings[mappings.count - 1].residentKiB = kibibytes(value) ?? 0
            case "Anonymous": mappings[mappings.count - 1].anonymousKiB = kibibytes(value) ?? 0
            case "VmFlags": mappings[mappings.count - 1].flags = value.split(separator: " ").map(String.init)
            default: break
            }
        }
        return mappings
    }

    /// This process's mappings now (`/proc/self/smaps`).
    public static func mappings() throws(SystemError) -> [Mapping] {
        parseSmaps(try readProcFile("/proc/self/smaps"))
    }

    /// `55d0c8a00000-55d0c8a21000 r-xp 00000000 08:01 1234    /usr/lib/libc.so.6`.
    private static func header(_ line: Substring) -> Mapping? {
        let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
        guard fields.count >= 5, let dash = fields[0].firstIndex(of: "-"),
              let start = UInt(fields[0][..<dash], radix: 16),
              let end = UInt(fields[0][fields[0].index(after: dash)...], radix: 16),
              fields[1].count == 4 else { return nil }
        let path = fields.count == 6 ? String(fields[5].drop { $0 == " " }) : ""
        return Mapping(start: start, end: end, permissions: String(fields[1]), path: path)
    }

    /// `     132 kB` → 132.
    private static func kibibytes(_ value: Substring) -> Int? {
        let parts = value.split(separator: " ")
        guard parts.count == 2, parts[1] == "kB" else { return nil }
        return Int(parts[0])
    }

    /// The process's resident memory in bytes (`/proc/self/statm`), nil where there is none.
    public static func residentBytes() -> Int? {
        guard let text = try? readProcFile("/proc/self/statm") else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// What one ``trim()`` did.
    public struct TrimReport: Sendable, Hashable {
        /// Resident bytes before and right after (the trim's own code is mapped again at once).
        public var residentBefore: Int
        public var residentAfter: Int
        /// Mappings unmapped, and the resident KiB they held.
        public var mappings: Int
        public var unmappedKiB: Int
        /// Whether glibc gave free heap memory back.
        public var heapReleased: Bool

        public init(residentBefore: Int, residentAfter: Int, mappings: Int, unmappedKiB: Int, heapReleased: Bool) {
            self.residentBefore = residentBefore
            self.residentAfter = residentAfter
            self.mappings = mappings
            self.unmappedKiB = unmappedKiB
            self.heapReleased = heapReleased
        }
    }

    /// Unmaps the pages of every mapping ``droppable(in:)`` names (`madvise(MADV_DONTNEED)`) and
    /// hands glibc's free heap back (`malloc_trim`). Safe at any time: only pages that equal
    /// their file are unmapped, and the next touch maps them again.
    ///
    /// - Throws: ``SystemError`` when `/proc/self/smaps` cannot be read; a mapping the kernel
    ///   refuses is skipped.
    public static func trim() throws(SystemError) -> TrimReport {
        let before = residentBytes() ?? 0
        let heapReleased = drift_malloc_trim() == 1
        var count = 0
        var kib = 0
        for mapping in droppable(in: try mappings()) {
            guard let address = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
            if madvise(address, Int(mapping.end - mapping.start), MADV_DONTNEED) == 0 {
                count += 1
                kib += mapping.residentKiB
            }
        }
        return TrimReport(residentBefore: before, residentAfter: residentBytes() ?? 0, mappings: count, unmappedKiB: kib,
                          heapReleased: heapReleased)
    }

    /// The whole text of a `/proc` file (their size reads as 0: read to the end).
    static func readProcFile(_ path: String) throws(SystemError) -> String {
        let fd = try Syscall.retryingEINTR("open", subject: path) { open(path, O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { buffer in read(fd, buffer.baseAddress, buffer.count) }
            if n == -1 {
                let code = Syscall.errno
                if code == EINTR { continue }
                throw SystemError(operation: "read", errno: code, subject: path)
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
