import DriftCore
@testable import DriftDaemon
import DriftSystem
import Foundation
import HTTPTypes
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue #18, "bounded at the door": what a connection may hold, and for how long. Each case
/// was reproduced on the daemon before the door existed (a silent connection, a header a
/// line at a time and a 100 KB header all still open after 240 s; 500 live sockets from one
/// client all accepted). Deadlines here are short so the events come quickly; the tests wait
/// for the event (an answer, a close) with a generous limit, never for time to pass.
@Suite("The door: connection caps and deadlines")
struct DoorTests {
    /// A raw connection from `source` (127.0.0.x stands in for one phone).
    static func connect(_ port: Int, from source: String = "127.0.0.1") async throws -> FileDescriptor {
        try await runBlocking { try TCPSocket.connect(host: "127.0.0.1", port: port, from: source) }
    }

    /// What the server sends on `socket` until it closes it, or `limit` runs out
    /// (`closed` says which). `send` runs between reads (a trickled header).
    static func drain(_ socket: FileDescriptor, limit: Duration = .seconds(30),
                      every interval: Int32 = 200, send: (@Sendable () -> [UInt8])? = nil) async throws -> (text: String, closed: Bool) {
        try await runBlocking {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16_384)
            let deadline = ContinuousClock.now + limit
            while ContinuousClock.now < deadline {
                if let send { try? UnixSocket.sendAll(socket, send()) }
                _ = try socket.poll(events: Int16(POLLIN), timeoutMilliseconds: interval)
                let count: Int?
                do {
                    count = try buffer.withUnsafeMutableBytes { try socket.read(into: $0) }
                } catch {
                    return (String(decoding: received, as: UTF8.self), true)   // reset by the server
                }
                guard let count else { continue }
                if count == 0 { return (String(decoding: received, as: UTF8.self), true) }
                received += buffer[0..<count]
            }
            return (String(decoding: received, as: UTF8.self), false)
        }
    }

    /// A WebSocket opening handshake for the box socket.
    static func upgradeRequest(token: String) -> [UInt8] {
        Array(("GET /api/v1/live?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
    }

    /// Reads until the handshake's answer head has arrived (its status line).
    static func answerHead(_ socket: FileDescriptor) async throws -> String {
        try await runBlocking {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline, !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
                _ = try socket.poll(events: Int16(POLLIN), timeoutMilliseconds: 200)
                guard let count = try buffer.withUnsafeMutableBytes({ try socket.read(into: $0) }) else { continue }
                if count == 0 { break }
                received += buffer[0..<count]
            }
            return String(decoding: received, as: UTF8.self)
        }
    }

    static func options(_ change: (inout VisitorDoor.Limits) -> Void) -> APIHarness.Options {
        var options = APIHarness.Options()
        change(&options.limits.door)
        return options
    }

    @Test("a connection that sends nothing, or its header a line at a time, is answered 408 and closed at the header deadline")
    func headerDeadline() async throws {
        // 2 s, not less: the deadline starts when the connection is accepted, and a whole header
        // sent at once must be read before it even when the event loop's thread waited its turn
        // for a while. Beside `stress-ng --cpu 2` a 500 ms deadline answered the fresh
        // connection below 408 once in 3 full runs.
        try await APIHarness.run(Self.options { $0.headerTimeout = .seconds(2) }) { harness in
            let silent = try await Self.connect(harness.port)
            defer { try? silent.close() }
            let trickle = try await Self.connect(harness.port)
            defer { try? trickle.close() }
            try UnixSocket.sendAll(trickle, Array("GET /api/v1/bottles HTTP/1.1\r\n".utf8))
            // The trickler sends a header line every 200 ms — it would never finish.
            async let trickled = Self.drain(trickle, send: { Array("X-Slow: yes\r\n".utf8) })
            let quiet = try await Self.drain(silent)
            #expect(quiet.closed, "the silent connection is still open")
            #expect(quiet.text.hasPrefix("HTTP/1.1 408 "), "\(quiet.text)")
            #expect(quiet.text.contains("\"code\":\"timeout\""), "\(quiet.text)")
            let slow = try await trickled
            #expect(slow.closed, "the trickling connection is still open")
            #expect(slow.text.hasPrefix("HTTP/1.1 408 "), "\(slow.text)")
            #expect(harness.api.door.snapshot.timedOut["header"] == 2)
            // A whole header is served as always (on a connection of its own: a pooled one
            // kept alive past the 2 s deadline is closed by the box, as it should be), and
            // the connections that timed out left.
            let fresh = try await Self.connect(harness.port)
            defer { try? fresh.close() }
            try UnixSocket.sendAll(fresh, Array("GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
            let served = try await Self.drain(fresh)
            #expect(served.text.hasPrefix("HTTP/1.1 200 "), "\(served.text.prefix(200))")
            #expect(harness.api.door.snapshot.connections <= 1)
        }
    }

    @Test("a header over 80 KiB is answered 431 with the JSON error and closed, not left hanging")
    func headerTooLarge() async throws {
        try await APIHarness.run { harness in
            let socket = try await Self.connect(harness.port)
            defer { try? socket.close() }
            let request = Array(("GET /api/v1/bottles HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 100_000) + "\r\n\r\n").utf8)
            try await runBlocking { try? UnixSocket.sendAll(socket, request, timeoutMilliseconds: 10_000) }
            let answer = try await Self.drain(socket)
            #expect(answer.text.hasPrefix("HTTP/1.1 431 "), "\(answer.text.prefix(300))")
            #expect(answer.text.contains("\"code\":\"header_too_large\""), "\(answer.text.prefix(300))")
            #expect(answer.closed)
        }
    }

    @Test("a kept-alive connection with nothing more to ask is closed after the idle timeout")
    func idleTimeout() async throws {
        try await APIHarness.run(Self.options { $0.idleTimeout = .milliseconds(500) }) { harness in
            let socket = try await Self.connect(harness.port)
            defer { try? socket.close() }
            try UnixSocket.sendAll(socket, Array("GET /api/v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            let answer = try await Self.drain(socket)
            #expect(answer.text.hasPrefix("HTTP/1.1 200 "), "\(answer.text.prefix(200))")
            #expect(answer.closed, "the idle connection is still open")
        }
    }

    @Test("one address holds at most its share of connections: more are answered 429; another address is served")
    func perAddressCap() async throws {
        try await APIHarness.run(Self.options { $0.connectionsPerClient = 4 }) { harness in
            var held: [FileDescriptor] = []
            defer { held.forEach { try? $0.close() } }
            for _ in 0..<4 { held.append(try await Self.connect(harness.port, from: "127.0.0.2")) }
            // The server admits connections as it accepts them: wait until all four are in.
            let inside = await APIHarness.eventually(every: .milliseconds(20)) { harness.api.door.snapshot.connections >= 4 }
            #expect(inside == true)
            let fifth = try await Self.connect(harness.port, from: "127.0.0.2")
            defer { try? fifth.close() }
            let refused = try await Self.drain(fifth)
            #expect(refused.text.hasPrefix("HTTP/1.1 429 "), "\(refused.text)")
            #expect(refused.text.contains("Retry-After: 5"), "\(refused.text)")
            #expect(refused.closed)
            #expect(harness.api.door.snapshot.refused["client"] == 1)
            // Another phone is not held up by the first one's connections.
            #expect(try await harness.client.get("/api/v1/openapi.json").status.code == 200)
        }
    }

    @Test("when every place is taken by connections that sent nothing, a visitor who asks is served and the longest-waiting is closed")
    func evictsTheLongestWaiting() async throws {
        try await APIHarness.run(Self.options { $0.connections = 3 }) { harness in
            var sitting: [FileDescriptor] = []
            defer { sitting.forEach { try? $0.close() } }
            for index in 0..<3 {
                sitting.append(try await Self.connect(harness.port, from: "127.0.0.\(10 + index)"))
                let admitted = await APIHarness.eventually(every: .milliseconds(20)) { harness.api.door.snapshot.connections >= index + 1 }
                #expect(admitted == true)
            }
            #expect(try await harness.client.get("/api/v1/openapi.json").status.code == 200)
            let first = try await Self.drain(sitting[0])
            #expect(first.closed, "the longest-waiting connection is still open")
            #expect(first.text.hasPrefix("HTTP/1.1 408 "), "\(first.text)")
            #expect(harness.api.door.snapshot.evicted == 1)
        }
    }

    @Test("live sockets: at most the cap from one address; the next is refused 429 with the JSON error before the upgrade; closing one frees its place")
    func liveSocketCap() async throws {
        try await APIHarness.run(Self.options { $0.liveSocketsPerClient = 2 }) { harness in
            let token = try await harness.newVisitor()
            var open: [FileDescriptor] = []
            defer { open.forEach { try? $0.close() } }
            for _ in 0..<2 {
                let socket = try await Self.connect(harness.port)
                try UnixSocket.sendAll(socket, Self.upgradeRequest(token: token))
                let head = try await Self.answerHead(socket)
                #expect(head.hasPrefix("HTTP/1.1 101 "), "\(head)")
                open.append(socket)
            }
            let third = try await Self.connect(harness.port)
            defer { try? third.close() }
            try UnixSocket.sendAll(third, Self.upgradeRequest(token: token))
            let refused = try await Self.drain(third)
            #expect(refused.text.hasPrefix("HTTP/1.1 429 "), "\(refused.text)")
            #expect(refused.text.contains("\"code\":\"rate_limited\""), "\(refused.text)")
            #expect(harness.api.door.snapshot.refused["live"] == 1)
            // One closes: its place is free again.
            try open.removeFirst().close()
            let freed = await APIHarness.eventually(every: .milliseconds(20)) { harness.api.door.snapshot.liveSockets <= 1 }
            #expect(freed == true)
            let again = try await Self.connect(harness.port)
            open.append(again)
            try UnixSocket.sendAll(again, Self.upgradeRequest(token: token))
            let head = try await Self.answerHead(again)
            #expect(head.hasPrefix("HTTP/1.1 101 "), "\(head)")
        }
    }

    @Test("a live socket that stops answering pings is closed")
    func unansweredPings() async throws {
        try await APIHarness.run(Self.options { $0.livePingInterval = .milliseconds(300) }) { harness in
            let token = try await harness.newVisitor()
            let socket = try await Self.connect(harness.port)
            defer { try? socket.close() }
            try UnixSocket.sendAll(socket, Self.upgradeRequest(token: token))
            // The raw client reads what comes (hello, pings) but never answers a ping.
            let seen = try await Self.drain(socket)
            #expect(seen.text.hasPrefix("HTTP/1.1 101 "), "\(seen.text.prefix(200))")
            #expect(seen.closed, "the socket that never answered a ping is still open")
            let gone = await APIHarness.eventually(every: .milliseconds(20)) { harness.api.door.snapshot.liveSockets == 0 }
            #expect(gone == true)
        }
    }
}

/// The door's bookkeeping on its own: who is admitted, who is evicted, what the caps are.
@Suite("The door's bookkeeping")
struct VisitorDoorTests {
    @Test("the global cap evicts the longest-waiting connection that sent no header; with none waiting, a newcomer is refused")
    func eviction() {
        var limits = VisitorDoor.Limits()
        limits.connections = 2
        let door = VisitorDoor(limits: limits)
        let evicted = Mutex<[String]>([])
        func enter(_ name: String) -> Result<VisitorDoor.Ticket, VisitorDoor.Refusal> {
            door.enter(client: name, evict: { evicted.withLock { $0.append(name) } })
        }
        let a = try? enter("a").get()
        let b = try? enter("b").get()
        #expect(a != nil && b != nil)
        door.headArrived(a!)
        // Full: b has sent nothing yet, a has; b goes.
        let c = try? enter("c").get()
        #expect(c != nil)
        #expect(evicted.withLock { $0 } == ["b"])
        door.leave(b!)
        // a and c hold places, c still waiting: c goes for d.
        let d = try? enter("d").get()
        #expect(d != nil)
        #expect(evicted.withLock { $0 } == ["b", "c"])
        door.leave(c!)
        door.headArrived(d!)
        // Everyone inside has asked for something: the newcomer is refused.
        #expect(throws: VisitorDoor.Refusal.full) { try enter("e").get() }
        door.leave(a!)
        #expect((try? enter("e").get()) != nil)
        #expect(door.snapshot.connections == 2)
        #expect(door.snapshot.evicted == 2)
        #expect(door.snapshot.refused["full"] == 1)
    }

    @Test("per-address caps bind one address only, and only when per-client limits are on")
    func perAddress() {
        var limits = VisitorDoor.Limits()
        limits.connectionsPerClient = 1
        limits.liveSocketsPerClient = 1
        let door = VisitorDoor(limits: limits)
        let first = try? door.enter(client: "10.42.0.20", evict: {}).get()
        #expect(first != nil)
        #expect(throws: VisitorDoor.Refusal.client) { try door.enter(client: "10.42.0.20", evict: {}).get() }
        #expect((try? door.enter(client: "10.42.0.21", evict: {}).get()) != nil)
        door.leave(first!)
        #expect((try? door.enter(client: "10.42.0.20", evict: {}).get()) != nil)
        #expect(door.openLive(client: "10.42.0.20"))
        #expect(!door.openLive(client: "10.42.0.20"))
        #expect(door.openLive(client: "10.42.0.21"))
        door.closeLive(client: "10.42.0.20")
        #expect(door.openLive(client: "10.42.0.20"))

        let shared = VisitorDoor(limits: limits, perClient: false)
        #expect((try? shared.enter(client: "127.0.0.1", evict: {}).get()) != nil)
        #expect((try? shared.enter(client: "127.0.0.1", evict: {}).get()) != nil)
        #expect(shared.openLive(client: "127.0.0.1") && shared.openLive(client: "127.0.0.1"))
    }

    @Test("the global cap leaves room under the descriptor limit: an eighth, at least 64, at most 256")
    func fitsTheDescriptorLimit() {
        let limits = VisitorDoor.Limits()
        #expect(limits.fitting(descriptorLimit: 128).connections == 64)
        #expect(limits.fitting(descriptorLimit: 128).connectionsPerClient == 32)
        #expect(limits.fitting(descriptorLimit: 1_024).connections == 896)
        #expect(limits.fitting(descriptorLimit: 8_192).connections == 1_024)
        #expect(limits.fitting(descriptorLimit: 80).connections == 16)
        #expect(limits.fitting(descriptorLimit: 80).connectionsPerClient == 16)
        #expect(limits.fitting(descriptorLimit: 40).connections == 1)
    }
}
