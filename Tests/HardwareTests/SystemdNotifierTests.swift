import DriftSystem
import Foundation
import Hardware
import TestSupport
import Testing

@Suite("sd_notify over real datagram sockets")
struct SystemdNotifierTests {
    @Test("messages arrive verbatim on a filesystem socket")
    func filesystemSocket() throws {
        let directory = try TemporaryDirectory(prefix: "notify")
        defer { directory.remove() }
        let listener = try NotifySocketListener(address: directory.appending("notify.sock"))
        let notifier = try #require(try SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": listener.address]))
        try notifier.send([.ready, .status("3 bottles, fix 3D")])
        #expect(try listener.receive() == "READY=1\nSTATUS=3 bottles, fix 3D")
        try notifier.send(.watchdog)
        #expect(try listener.receive() == "WATCHDOG=1")
        try notifier.send(.stopping)
        #expect(try listener.receive() == "STOPPING=1")
    }

    @Test("messages arrive on an abstract socket (@name)")
    func abstractSocket() throws {
        let listener = try NotifySocketListener.abstract()
        let notifier = try SystemdNotifier(address: listener.address)
        try notifier.send([.watchdogTrigger])
        #expect(try listener.receive() == "WATCHDOG=trigger")
        try notifier.send(.extendTimeout(.seconds(12)))
        #expect(try listener.receive() == "EXTEND_TIMEOUT_USEC=12000000")
        try notifier.send(.status("line one\nline two"))
        #expect(try listener.receive() == "STATUS=line one line two")
        try notifier.send(.mainPID(42))
        #expect(try listener.receive() == "MAINPID=42")
    }

    @Test("a reader that stopped reading makes sends fail with EAGAIN, never block", .timeLimit(.minutes(1)))
    func fullQueueDoesNotBlock() async throws {
        let listener = try NotifySocketListener.abstract()
        let notifier = try SystemdNotifier(address: listener.address)
        // Nobody reads: the receiver's queue fills after a few hundred datagrams.
        let refused = try await runBlocking { () throws -> Int32? in
            for _ in 0..<100_000 {
                do {
                    try notifier.send(.watchdog)
                } catch {
                    return (error as? SystemError)?.errno ?? -1
                }
            }
            return nil
        }
        #expect(refused == EAGAIN)
        #expect(try listener.receive() == "WATCHDOG=1")
    }

    @Test("no NOTIFY_SOCKET means no notifier")
    func unset() throws {
        #expect(try SystemdNotifier.fromEnvironment([:]) == nil)
        #expect(try SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": ""]) == nil)
    }

    @Test("relative or odd addresses are refused with a typed error")
    func badAddress() {
        #expect(throws: SystemError.self) { try SystemdNotifier(address: "relative.sock") }
        #expect(throws: SystemError.self) { try SystemdNotifier(address: "/" + String(repeating: "x", count: 200)) }
    }

    @Test("sending to a socket nobody listens on throws, it does not crash")
    func nobodyListening() throws {
        let notifier = try SystemdNotifier(address: "/nonexistent/drift-notify.sock")
        #expect(throws: SystemError.self) { try notifier.send(.ready) }
    }

    @Test("watchdog interval honours WATCHDOG_USEC and WATCHDOG_PID")
    func watchdogInterval() {
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "2000000"], pid: 7) == .seconds(2))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "7"], pid: 7) == .seconds(2))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "8"], pid: 7) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "0"], pid: 7) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "soon"], pid: 7) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: [:], pid: 7) == nil)
    }
}
