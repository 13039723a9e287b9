import DriftSystem
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Giving memory back (``ResidentMemory``): which mappings may be unmapped, read from real
/// `/proc/self/smaps` text, and a real trim of this test process — the pages of a read-only
/// file mapping go and come back with the file's contents, a written private mapping keeps
/// what was written.
@Suite("Resident memory")
struct ResidentMemoryTests {
    static let sample = """
        55d0c8a00000-55d0c8a21000 r-xp 00001000 08:01 1234                       /opt/drift box/driftd
        Size:                132 kB
        Rss:                  96 kB
        Anonymous:             0 kB
        VmFlags: rd ex mr mw me
        55d0c8c21000-55d0c8c25000 r--p 00022000 08:01 1234                       /opt/drift box/driftd
        Size:                 16 kB
        Rss:                  16 kB
        Anonymous:            16 kB
        VmFlags: rd mr mw me ac
        55d0c8c25000-55d0c8c26000 rw-p 00026000 08:01 1234                       /opt/drift box/driftd
        Rss:                   4 kB
        Anonymous:             4 kB
        55d0c9000000-55d0c9100000 rw-p 00000000 00:00 0                          [heap]
        Rss:                  64 kB
        Anonymous:            64 kB
        7f0000000000-7f0000010000 r--p 00000000 00:00 0
        Rss:                   8 kB
        Anonymous:             8 kB
        7f0000010000-7f0000020000 r-xp 00000000 08:01 99                         /usr/lib/libx.so (deleted)
        Rss:                  12 kB
        Anonymous:             0 kB
        7f0000020000-7f0000030000 r-xp 00000000 08:01 98                         /usr/lib/liblocked.so
        Rss:                  12 kB
        Anonymous:             0 kB
        VmFlags: rd ex lo
        7f0000030000-7f0000040000 r--s 00000000 08:01 97                         /data/drift.sqlite-shm
        Rss:                  12 kB
        Anonymous:             0 kB
        7f0000040000-7f0000050000 r--p 00000000 08:01 96                         /usr/lib/libcold.so
        Rss:                   0 kB
        Anonymous:             0 kB
        """

    @Test("smaps text: ranges, permissions, paths with spaces, resident and anonymous sizes, flags")
    func parse() {
        let mappings = ResidentMemory.parseSmaps(Self.sample)
        #expect(mappings.count == 9)
        #expect(mappings[0].start == 0x55d0_c8a0_0000 && mappings[0].end == 0x55d0_c8a2_1000)
        #expect(mappings[0].permissions == "r-xp" && mappings[0].path == "/opt/drift box/driftd")
        #expect(mappings[0].residentKiB == 96 && mappings[0].anonymousKiB == 0 && mappings[0].flags.contains("ex"))
        #expect(mappings[3].path == "[heap]" && mappings[3].anonymousKiB == 64)
        #expect(mappings[4].path == "")
    }

    @Test("only clean, private, read-only file mappings holding pages may be unmapped, and only of programs and libraries")
    func droppable() {
        let mappings = ResidentMemory.parseSmaps(Self.sample)
        // The code only: not the relocated read-only data (its pages were written), writable
        // data, the heap, anonymous memory, a replaced library, locked pages, a shared mapping,
        // or a mapping with nothing resident.
        #expect(mappings.filter(\.isDroppable).map(\.start) == [0x55d0_c8a0_0000])
        #expect(ResidentMemory.droppable(in: mappings).map(\.start) == [0x55d0_c8a0_0000])
        // A read-only data file (no executable mapping of it) is left alone: another thread could
        // unmap it while the trim runs.
        let data = ResidentMemory.Mapping(start: 0x7f00_0005_0000, end: 0x7f00_0006_0000, permissions: "r--p",
                                          path: "/data/media/photo.webp", residentKiB: 64)
        #expect(data.isDroppable && ResidentMemory.droppable(in: mappings + [data]).map(\.start) == [0x55d0_c8a0_0000])
    }

    @Test("this process's resident memory is read from /proc")
    func resident() {
        let bytes = ResidentMemory.residentBytes() ?? 0
        #expect(bytes > 1 << 20)
    }

    /// A private mapping of a new file of `pages` pages, page `i` filled with the byte `i + 1`,
    /// handed to `body` with the page size, beside an executable mapping of the file as a
    /// library has; the mappings and the file go afterwards.
    static func withMappedFile(pages: Int, protection: Int32, _ body: (UnsafeMutableRawPointer, Int) throws -> Void) throws {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let path = NSTemporaryDirectory() + "resident-\(UUID().uuidString)"
        var bytes = [UInt8]()
        for page in 0..<pages { bytes += [UInt8](repeating: UInt8(page + 1), count: pageSize) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        let length = pages * pageSize
        let base = try #require(mmap(nil, length, protection, MAP_PRIVATE, fd, 0).flatMap { $0 == MAP_FAILED ? nil : $0 })
        defer { munmap(base, length) }
        // An executable mapping of the same file's first page makes it a "library" to the trim.
        let code = try #require(mmap(nil, pageSize, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0).flatMap { $0 == MAP_FAILED ? nil : $0 })
        defer { munmap(code, pageSize) }
        try body(base, pageSize)
    }

    /// The mapping starting at `address` in this process's smaps now.
    static func mapping(at address: UnsafeMutableRawPointer) throws -> ResidentMemory.Mapping? {
        try ResidentMemory.mappings().first { $0.start == UInt(bitPattern: address) }
    }

    @Test("a trim unmaps a read-only file mapping's pages; touched again, they hold the file's bytes")
    func trimReadOnly() throws {
        let pages = 16
        try Self.withMappedFile(pages: pages, protection: PROT_READ) { base, pageSize in
            var sum = 0
            for page in 0..<pages { sum += Int(base.load(fromByteOffset: page * pageSize, as: UInt8.self)) }
            #expect(sum == (1...pages).reduce(0, +))
            #expect(try Self.mapping(at: base)?.residentKiB == pages * pageSize / 1024)

            let report = try ResidentMemory.trim()
            #expect(report.mappings >= 1 && report.unmappedKiB >= pages * pageSize / 1024)
            #expect(try Self.mapping(at: base)?.residentKiB == 0)
            for page in 0..<pages { #expect(base.load(fromByteOffset: page * pageSize + 7, as: UInt8.self) == UInt8(page + 1)) }
        }
    }

    @Test("a private mapping written and then made read-only (a relocated .data.rel.ro) keeps what was written")
    func trimKeepsWrittenPages() throws {
        let pages = 4
        try Self.withMappedFile(pages: pages, protection: PROT_READ | PROT_WRITE) { base, pageSize in
            for page in 0..<pages { base.storeBytes(of: UInt8(0xA0 + page), toByteOffset: page * pageSize, as: UInt8.self) }
            #expect(mprotect(base, pages * pageSize, PROT_READ) == 0)
            #expect(try Self.mapping(at: base)?.isDroppable == false)

            _ = try ResidentMemory.trim()
            for page in 0..<pages { #expect(base.load(fromByteOffset: page * pageSize, as: UInt8.self) == UInt8(0xA0 + page)) }
        }
    }
}
