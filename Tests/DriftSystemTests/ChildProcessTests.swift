import DriftSystem
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Children start with an empty signal mask and default dispositions, whatever the parent
/// blocks or ignores — the Mosquitto that `driftd bench mqtt` started inherited driftd's
/// blocked SIGTERM/SIGINT and stayed behind (`SigBlk: 0000000000004a03`).
@Suite("Child processes")
struct ChildProcessTests {
    /// The `SigBlk` and `SigIgn` masks of `pid`, from /proc.
    static func masks(_ pid: pid_t) -> (blocked: UInt64, ignored: UInt64)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func field(_ name: String) -> UInt64? {
            text.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { UInt64($0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces), radix: 16) }
        }
        guard let blocked = field("SigBlk"), let ignored = field("SigIgn") else { return nil }
        return (blocked, ignored)
    }

    @Test("spawned from a thread that blocks and ignores SIGTERM, the child has a clean mask and SIGTERM ends it")
    func cleanSignals() async throws {
        let (pid, status, masks) = try await runBlocking { () throws -> (pid_t, Int32, (blocked: UInt64, ignored: UInt64)?) in
            // What service-lifecycle does to driftd: SIGTERM blocked and ignored.
            var block = sigset_t()
            sigemptyset(&block)
            sigaddset(&block, SIGTERM)
            sigaddset(&block, SIGINT)
            var previous = sigset_t()
            pthread_sigmask(SIG_BLOCK, &block, &previous)
            let oldTerm = signal(SIGUSR2, SIG_IGN)
            defer {
                pthread_sigmask(SIG_SETMASK, &previous, nil)
                signal(SIGUSR2, oldTerm)
            }
            // glibc's posix_spawn (CLONE_VFORK) returns once the child's exec has let go of the
            // parent's memory — in the kernel that is before the new program's name is set, so
            // wait for /proc to name `sleep` (the exec is then done) before reading its masks.
            let child = try ChildProcess(executable: "/bin/sleep", arguments: ["30"])
            let deadline = ContinuousClock.now + .seconds(20)
            var comm: String?
            repeat {
                comm = try? String(contentsOfFile: "/proc/\(child.pid)/comm", encoding: .utf8)
                if comm?.hasPrefix("sleep") == true { break }
                usleep(1_000)
            } while ContinuousClock.now < deadline
            let masks = comm?.hasPrefix("sleep") == true ? Self.masks(child.pid) : nil
            child.send(SIGTERM)
            return (child.pid, child.waitUntilExit(), masks)
        }
        #expect(pid > 0)
        // Signals 1–31 (glibc's sigfillset leaves out its two internal real-time signals).
        let standard: UInt64 = 0x7FFF_FFFF
        #expect(masks.map { $0.blocked & standard } == 0, "blocked: \(String(masks?.blocked ?? 0, radix: 16))")
        #expect(masks.map { $0.ignored & standard } == 0, "ignored: \(String(masks?.ignored ?? 0, radix: 16))")
        #expect(status == 128 + SIGTERM)
    }

    /// Found by the door's tests: NIO accepts connections without close-on-exec, so a child
    /// spawned by another test (or by driftd) kept the server's end of a connection the server
    /// had closed, and the client never saw the close while that child lived.
    @Test("a child inherits no descriptor but stdin, stdout and stderr, close-on-exec or not")
    func noInheritedDescriptors() async throws {
        let directory = try TemporaryDirectory(prefix: "child-fds")
        defer { directory.remove() }
        let (status, leaked) = try await runBlocking { () throws -> (Int32, Int32) in
            // A descriptor without close-on-exec, as NIO's accepted sockets are — moved to 100 or
            // above: with descriptor 3 free in this process (it was, once, under load) the plain
            // open got 3, the number `ls` uses for the directory it reads, and the test saw a leak.
            let opened = open("/dev/null", O_RDONLY)
            let leaked = fcntl(opened, F_DUPFD, 100)
            close(opened)
            defer { close(leaked) }
            let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "ls /proc/self/fd"],
                                         outputPath: directory.appending("fds"))
            return (child.waitUntilExit(), leaked)
        }
        #expect(status == 0)
        #expect(leaked >= 100)
        // `ls` lists its own 0, 1, 2 and the directory it reads (3).
        let listed = try String(contentsOfFile: directory.appending("fds"), encoding: .utf8).split(separator: "\n").compactMap { Int32($0) }
        #expect(!listed.contains(leaked), "the child holds descriptor \(leaked): \(listed)")
        #expect(listed.filter { $0 > 3 }.isEmpty, "\(listed)")
    }

    @Test("output goes to the file; terminate reaps a child that exits by itself")
    func outputAndTerminate() async throws {
        let directory = try TemporaryDirectory(prefix: "child")
        defer { directory.remove() }
        let status = try await runBlocking { () throws -> Int32 in
            let child = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo out; echo err >&2; exit 3"],
                                         outputPath: directory.appending("log"))
            return child.waitUntilExit()
        }
        #expect(status == 3)
        #expect(try String(contentsOfFile: directory.appending("log"), encoding: .utf8) == "out\nerr\n")
        #expect(throws: SystemError.self) { try ChildProcess(executable: "/no/such/program", arguments: []) }
    }
}
