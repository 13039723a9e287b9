import DriftMesh
import DriftStore
import Foundation
import Hardware
import Logging
import Testing
import TestSupport

@testable import DriftDaemon

/// The daemon's mesh node on a real SQLite file: what it does with good, forged, altered,
/// truncated, foreign, expired and replayed frames, and that its seen-set outlives a restart.
/// Its time is a manual clock (the wall clock starts at the real time and moves with it):
/// timing is checked exactly, and nothing sleeps.
@Suite("Mesh node: frames in, verdicts counted")
struct MeshNodeTests {
    static let networkKey = Array("drift-mesh-node-test-key-32bytes".utf8)

    /// A node whose time is `clock` (standing still unless the test moves it); its wall clock
    /// reads `start` at the clock's zero.
    static func node(database: DriftDatabase, keyPair: BoxKeyPair = BoxKeyPair(), router: MeshRouterConfiguration = .standard,
                     retrySpacing: Duration = .seconds(15), clock: ManualClock = ManualClock(), start: Date = Date(),
                     logger: Logger = Logger(label: "test")) throws -> MeshNode {
        let settings = MeshNode.Settings(hopLimit: 3, messageLifetime: 3_600, modulation: .longFast, router: router,
                                         retrySpacing: retrySpacing)
        return try MeshNode(keyPair: keyPair, networkKey: networkKey, store: MeshStore(database: database),
                            budget: AirtimeBudget(window: .seconds(3_600), limit: .seconds(360)), settings: settings,
                            logger: logger, clock: clock, now: clock.wallClock(startingAt: start))
    }

    /// A broadcast text frame from another box, sealed with `key`.
    static func frame(text: String, packetID: UInt32, origin: BoxKeyPair, key: [UInt8] = networkKey,
                      lifetime: TimeInterval = 3_600, now: Date = Date(), hopStart: UInt8 = 0) throws -> [UInt8] {
        let header = MeshHeader(kind: .broadcast, origin: origin.nodeID, packetID: packetID, hopStart: hopStart,
                                expiresAtMinute: MeshHeader.expiryMinute(now: now, lifetime: lifetime))
        return try MeshSealer(networkKey: key).seal(header: header, plaintext: MeshMessage.text(text).encoded)
    }

    static func reception(_ bytes: [UInt8]) -> RadioReception {
        RadioReception(bytes: bytes, rssi: -90, snr: 5)
    }

    @Test("a good frame is delivered once; forged, altered, truncated, foreign and expired ones are dropped and counted")
    func verdicts() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-node")
        defer { directory.remove() }
        let node = try Self.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")))
        let other = BoxKeyPair()
        let good = try Self.frame(text: "hello", packetID: 7, origin: other)

        await node.receive(Self.reception(good))
        await node.receive(Self.reception(good))  // a relay's copy, or a replay
        var altered = good
        altered[altered.count - 20] ^= 0x01
        await node.receive(Self.reception(altered))
        await node.receive(Self.reception(Array(good.prefix(10))))
        await node.receive(Self.reception(try Self.frame(text: "x", packetID: 8, origin: other, key: Array("another-mesh-key-of-32-bytes-!!!".utf8))))
        await node.receive(Self.reception(try Self.frame(text: "old", packetID: 9, origin: other, lifetime: 60,
                                                          now: Date().addingTimeInterval(-600))))

        let counters = await node.status().counters
        #expect(counters.heard == 6)
        #expect(counters.delivered == 1)
        #expect(counters.duplicates == 1)
        #expect(counters.forged + counters.foreign == 2, "\(counters)")  // the altered one fails its tag; the foreign one its network hint (or tag)
        #expect(counters.malformed.values.reduce(0, +) == 1, "\(counters.malformed)")
        #expect(counters.expired == 1)
        #expect(node.inbox.all.map(\.text) == ["hello"])
    }

    @Test("the seen-set survives a restart: a replay after it is dropped, not delivered again")
    func replayAfterRestart() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-node-restart")
        defer { directory.remove() }
        let path = directory.appending("drift.sqlite")
        let me = BoxKeyPair()
        let other = BoxKeyPair()
        let good = try Self.frame(text: "only once", packetID: 42, origin: other)
        do {
            let node = try Self.node(database: try DriftDatabase.open(path: path), keyPair: me)
            await node.receive(Self.reception(good))
            #expect(node.inbox.all.count == 1)
        }
        let restarted = try Self.node(database: try DriftDatabase.open(path: path), keyPair: me)
        await restarted.receive(Self.reception(good))
        let counters = await restarted.status().counters
        #expect(counters.duplicates == 1)
        #expect(counters.delivered == 0)
        #expect(restarted.inbox.all.isEmpty)
    }

    @Test("a directed message is acknowledged, and acknowledged again when its sender retries (the first ack was lost)")
    func reacknowledge() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-node-ack")
        defer { directory.remove() }
        let me = BoxKeyPair()
        let clock = ManualClock()
        let node = try Self.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")), keyPair: me, clock: clock)
        let other = BoxKeyPair()
        let header = MeshHeader(kind: .directed, origin: other.nodeID, packetID: 99, destination: me.nodeID, hopStart: 3, wantsAck: true,
                                expiresAtMinute: MeshHeader.expiryMinute(now: Date(), lifetime: 3_600))
        let frame = try MeshSealer(networkKey: Self.networkKey).seal(header: header, plaintext: MeshMessage.text("for you").encoded)
        await node.receive(Self.reception(frame))
        #expect(node.inbox.all.map(\.text) == ["for you"])
        #expect(await node.status().counters.sentOwn == 1)  // the ack
        clock.advance(by: .seconds(30))  // the sender's outbox retry
        await node.receive(Self.reception(frame))
        let counters = await node.status().counters
        #expect(counters.sentOwn == 2)
        #expect(counters.delivered == 1)
    }

    @Test("a neighbour's digest that lacks a held packet queues a catch-up copy; another box sending it first takes ours off the queue")
    func catchUpSuppressed() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-node-catchup")
        defer { directory.remove() }
        let clock = ManualClock()
        var fastRelays = MeshRouterConfiguration.standard
        fastRelays.slot = .microseconds(10)  // the relay planned on the first copy waits under 3 ms
        let node = try Self.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")), router: fastRelays, clock: clock)
        let origin = BoxKeyPair()
        let neighbour = BoxKeyPair()
        let held = try Self.frame(text: "catch me up", packetID: 5, origin: origin, hopStart: 3)
        await node.receive(Self.reception(held))
        _ = await node.tick()
        clock.advance(by: .milliseconds(50))
        _ = await node.tick()
        #expect(await node.status().counters.sentRelays == 1)
        // The hello, the start digest and the relay, one time on air after another.
        while true {
            let (frame, wake) = await node.nextTransmission()
            if frame != nil { continue }
            guard let wake, wake - node.monotonicNow < .seconds(5) else { break }
            clock.advance(by: wake - node.monotonicNow)
        }

        // The neighbour holds nothing: its digest is empty and complete.
        let digestHeader = MeshHeader(kind: .digest, origin: neighbour.nodeID, packetID: 1, hopStart: 0,
                                      expiresAtMinute: MeshHeader.expiryMinute(now: Date(), lifetime: 600))
        let digest = try MeshSealer(networkKey: Self.networkKey).seal(header: digestHeader, plaintext: SyncDigest(held: []).encoded())
        await node.receive(Self.reception(digest))
        #expect(await node.status().counters.framesResent == 0, "answered without its random delay")
        let answerAt = await node.tick()
        #expect(answerAt <= node.monotonicNow + LoRaAirtime.duration(payloadBytes: MeshFrame.maxBytes, modulation: .longFast) * 8)
        clock.advance(by: answerAt - node.monotonicNow)
        _ = await node.tick()
        #expect(await node.status().counters.framesResent == 1)

        // A third box sends the packet first (a relayed copy of the same key).
        var relayed = try MeshFrameCodec.relay(held, by: BoxKeyPair().nodeID)
        relayed = try MeshFrameCodec.relay(relayed, by: BoxKeyPair().nodeID)
        await node.receive(Self.reception(relayed))
        #expect(await node.status().counters.resendsSuppressed == 1)
    }

    /// A node that relayed a directed message for two other boxes once (at `clock`'s now when it
    /// returns), and that message's frame.
    static func relayedOnce(in directory: TemporaryDirectory, clock: ManualClock,
                            retrySpacing: Duration) async throws -> (node: MeshNode, frame: [UInt8]) {
        var fastRelays = MeshRouterConfiguration.standard
        fastRelays.slot = .microseconds(10)  // a relay waits at most 288 slots: under 3 ms
        let node = try Self.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")), router: fastRelays,
                                 retrySpacing: retrySpacing, clock: clock)
        let (origin, destination) = (BoxKeyPair(), BoxKeyPair())
        let header = MeshHeader(kind: .directed, origin: origin.nodeID, packetID: 11, destination: destination.nodeID, hopStart: 3,
                                wantsAck: true, expiresAtMinute: MeshHeader.expiryMinute(now: Date(), lifetime: 3_600))
        // As an upstream relay passes it on (one hop taken): a copy straight from the origin is
        // relayed again whenever it comes (the machine's tests).
        let frame = try MeshFrameCodec.relay(try MeshSealer(networkKey: Self.networkKey).seal(header: header, plaintext: MeshMessage.text("onwards").encoded),
                                             by: BoxKeyPair().nodeID)
        await node.receive(Self.reception(frame))
        clock.advance(by: .milliseconds(50))
        _ = await node.tick()  // the planned relay is due
        #expect(await node.status().counters.sentRelays == 1)
        return (node, frame)
    }

    @Test("a relay passes a directed message's end-to-end retry on (a duplicate heard long after), not a quick duplicate")
    func retriesRelayedAgain() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-node-retry")
        defer { directory.remove() }
        let clock = ManualClock()
        let (node, frame) = try await Self.relayedOnce(in: directory, clock: clock, retrySpacing: .seconds(3))
        await node.receive(Self.reception(frame))  // a neighbour's copy right away: an ordinary duplicate
        #expect(await node.status().counters.retriesRelayed == 0)
        clock.advance(by: .milliseconds(3_200))
        await node.receive(Self.reception(frame))  // the origin's retry, later
        clock.advance(by: .milliseconds(1))  // passed on after a random delay: at most 64 slots of 10 µs
        _ = await node.tick()
        let counters = await node.status().counters
        #expect(counters.retriesRelayed == 1)
        #expect(counters.sentRelays == 2)
        #expect(counters.delivered == 0)  // not for this box
    }

    @Test("a copy heard retrySpacing after the relay is relayed again; one heard a nanosecond earlier is not")
    func retryExactlyAtSpacing() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-node-retry-exact")
        defer { directory.remove() }
        let clock = ManualClock()
        let spacing = Duration.seconds(15)
        let (node, frame) = try await Self.relayedOnce(in: directory, clock: clock, retrySpacing: spacing)
        clock.advance(by: spacing - .nanoseconds(1))
        await node.receive(Self.reception(frame))
        var counters = await node.status().counters
        #expect(counters.retriesRelayed == 0, "relayed again before retrySpacing had passed")
        #expect(counters.duplicates == 1)
        clock.advance(by: .nanoseconds(1))
        await node.receive(Self.reception(frame))
        clock.advance(by: .milliseconds(1))  // passed on after a random delay: at most 64 slots of 10 µs
        _ = await node.tick()
        counters = await node.status().counters
        #expect(counters.retriesRelayed == 1)
        #expect(counters.sentRelays == 2)
    }

    @Test("a sent message is in the outbox before it is transmitted, and its frames are queued for the radio")
    func sendIsStoredFirst() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-node-send")
        defer { directory.remove() }
        let database = try DriftDatabase.open(path: directory.appending("drift.sqlite"))
        let node = try Self.node(database: database)
        let receipt = try await node.send(.text(String(repeating: "long text ", count: 59)))
        #expect(receipt.frames == 3)  // 591 bytes with the port byte: 3 fragments of ≤ 200
        let stored = try MeshStore(database: database).counts()
        #expect(stored.queued == 1)
        _ = await node.tick()
        var sent = 0
        while case let (frame?, _) = await node.nextTransmission() {
            #expect(frame.bytes.count <= MeshFrame.maxBytes)
            sent += 1
        }
        // The queue releases one frame per time on air; the first is out at once, and the
        // clock stands still.
        #expect(sent == 1)
        #expect(try MeshStore(database: database).counts().sent == 1)
    }

    @Test("at trace level the node logs each message stored and each frame heard and handed to the radio, by header; below it nothing", arguments: [Logger.Level.trace, .debug])
    func traceLines(level: Logger.Level) async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-node-trace")
        defer { directory.remove() }
        let (sink, lines) = JournalLogHandler.Sink.collecting()
        var logger = Logger(label: "mesh") { JournalLogHandler(label: $0, level: level, style: .text, sink: sink) }
        logger.logLevel = level
        let me = BoxKeyPair()
        let node = try Self.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")), keyPair: me, logger: logger)
        let other = BoxKeyPair()
        let receipt = try await node.send(.text(String(repeating: "long text ", count: 30)), to: other.nodeID)
        #expect(receipt.frames == 2)
        _ = await node.tick()
        let first = try #require(await node.nextTransmission().frame)
        await node.receive(Self.reception(try Self.frame(text: "hello", packetID: 7, origin: other)))
        await node.receive(Self.reception([0xff, 0x00, 0x01]))

        let traced = lines().filter { $0.contains(" trace ") }
        guard level == .trace else {
            #expect(traced.isEmpty, "\(traced)")
            return
        }
        let message = "\(me.nodeID)#\(receipt.packetID)"
        #expect(traced.count == 4, "\(traced)")
        #expect(traced.contains { $0.contains("mesh message stored") && $0.contains("message=\(message)") && $0.contains("frames=2")
            && $0.contains("to=\(other.nodeID)") }, "\(traced)")
        #expect(traced.contains { $0.contains("mesh frame to the radio") && $0.contains("kind=directed") && $0.contains("message=\(message)")
            && $0.contains("piece=1/2") && $0.contains("hops=0/3") && $0.contains("wants_ack=true")
            && $0.contains("bytes=\(first.bytes.count)") && $0.contains("airtime_ms=\(first.airtime / .milliseconds(1))") }, "\(traced)")
        #expect(traced.contains { $0.contains("mesh frame heard") && $0.contains("kind=broadcast") && $0.contains("message=\(other.nodeID)#7")
            && $0.contains("rssi=-90.0") && $0.contains("snr=5.0") }, "\(traced)")
        #expect(traced.contains { $0.contains("mesh frame heard") && $0.contains("malformed=true") && $0.contains("bytes=3") }, "\(traced)")
    }

    @Test("checkFits refuses what send would refuse for its size, and stores nothing either way")
    func checkFitsAgreesWithSend() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-node-fits")
        defer { directory.remove() }
        let database = try DriftDatabase.open(path: directory.appending("drift.sqlite"))
        let node = try Self.node(database: database)
        let small = MeshMessage.text(String(repeating: "long text ", count: 59))
        let large = MeshMessage.text(String(repeating: "long text ", count: 400))
        try await node.checkFits(small)
        await #expect(throws: MeshNode.SendError.self) { try await node.checkFits(large) }
        #expect(try MeshStore(database: database).counts().queued == 0)
        await #expect(throws: MeshNode.SendError.self) { try await node.send(large) }
        #expect(try await node.send(small).frames == 3)
    }

    @Test("while a neighbour sends the rest of a fragmented message, the box keeps its own frames back (half duplex)")
    func quietDuringFragments() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-node-quiet")
        defer { directory.remove() }
        let clock = ManualClock()
        let node = try Self.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")), clock: clock)
        let origin = BoxKeyPair()
        let base = MeshHeader(kind: .broadcast, origin: origin.nodeID, packetID: 100, hopStart: 0,
                              expiresAtMinute: MeshHeader.expiryMinute(now: Date(), lifetime: 3_600))
        let pieces = try MeshSealer(networkKey: Self.networkKey).sealPayload(Array(repeating: 0x41, count: 500), base: base, originKey: nil)
        #expect(pieces.count == 3)
        // The first piece of three: two more follow back to back (≈ 2 × 2 s at LongFast). The
        // box must not transmit before they have had time to arrive.
        let piece = LoRaAirtime.duration(payloadBytes: pieces[0].count, modulation: .longFast)
        let heardAt = node.monotonicNow
        await node.receive(Self.reception(pieces[0]))
        _ = try await node.send(.text("mine"))
        _ = await node.tick()
        let (held, wake) = await node.nextTransmission()
        #expect(held == nil, "a frame went out while the neighbour was still sending")
        let until = try #require(wake, "nothing scheduled")
        #expect(until >= heardAt + piece * 2, "quiet only until \(until - heardAt) after the first piece")
        // The rest arrives; up to the end of the quiet time nothing goes out, then our frame does.
        await node.receive(Self.reception(pieces[1]))
        await node.receive(Self.reception(pieces[2]))
        clock.advance(to: .init(offset: until - .nanoseconds(1)))
        _ = await node.tick()
        #expect(await node.nextTransmission().frame == nil, "a frame went out before the quiet time was over")
        clock.advance(to: .init(offset: until))
        _ = await node.tick()
        #expect(await node.nextTransmission().frame != nil)
    }

    @Test("after a directed frame that wants an acknowledgement, the box keeps the channel free for the answer")
    func waitsForTheAnswer() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-node-answer")
        defer { directory.remove() }
        let clock = ManualClock()
        let node = try Self.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")), clock: clock)
        let neighbour = BoxKeyPair().nodeID
        // A chat join and its first line, queued together for the same box.
        _ = try await node.send(.text("join"), to: neighbour, priority: .interactive)
        _ = try await node.send(.text("first line"), to: neighbour, priority: .interactive)
        _ = await node.tick()
        let sentAt = node.monotonicNow
        let first = try #require(await node.nextTransmission().frame, "the first frame goes out at once")
        let ack = LoRaAirtime.duration(
            payloadBytes: MeshFrameCodec.overheadBytes(hasDestination: true, fragmented: false, originTagged: false) + 4,
            modulation: .longFast)
        // The clock stands still: the second frame waits at least for the first's time on air
        // and the answer's.
        let (second, wake) = await node.nextTransmission()
        #expect(second == nil, "the second frame went out before the answer could")
        let until = try #require(wake, "the second frame is not scheduled")
        #expect(until >= sentAt + first.airtime + ack, "the channel is free for the answer only until \(until - sentAt)")
        let waits = await node.status().counters.answerWaits
        #expect(waits == 1, "\(waits) answer waits")
        clock.advance(to: .init(offset: until - .nanoseconds(1)))
        _ = await node.tick()
        #expect(await node.nextTransmission().frame == nil, "the second frame went out before its wake")
        clock.advance(to: .init(offset: until))
        _ = await node.tick()
        let next = try #require(await node.nextTransmission().frame, "the second frame did not go out at its wake")
        #expect(try MeshFrameCodec.parse(next.bytes).header.kind == .directed)
        // Broadcasts want no answer: nothing waits after one.
        let other = try Self.node(database: try DriftDatabase.open(path: directory.appending("other.sqlite")))
        _ = try await other.send(.text("to all"))
        _ = await other.tick()
        #expect(await other.nextTransmission().frame != nil)
        #expect(await other.status().counters.answerWaits == 0)
    }

    @Test("frames heard for 10 % of the last 30 s make the router's channel busy; a tick turns it quiet when they have left the window")
    func channelBusyFeed() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-node-busy")
        defer { directory.remove() }
        let clock = ManualClock()
        let node = try Self.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")), clock: clock)
        let other = BoxKeyPair()
        var expected = ChannelBusyDetector()  // what the node should have concluded, frame by frame
        var id: UInt32 = 1
        while !expected.busy {
            #expect(await !node.channelBusy)
            let bytes = try Self.frame(text: "frame", packetID: id, origin: other)
            let end = node.monotonicNow
            await node.receive(Self.reception(bytes))
            _ = expected.heard(airtime: LoRaAirtime.duration(payloadBytes: bytes.count, modulation: .longFast), endingAt: end)
            id += 1
            clock.advance(by: .seconds(2))
        }
        #expect(id > 4, "a LongFast frame of this size is under 1 s: it takes several to fill 3 s")
        #expect(await node.channelBusy)
        // Nothing more heard: the tick answers the instant the channel turns quiet (or sooner).
        let quiet = try #require(expected.quietAt(after: node.monotonicNow))
        #expect(await node.tick() <= quiet)
        clock.advance(by: quiet - node.monotonicNow - .nanoseconds(1))
        _ = await node.tick()
        #expect(await node.channelBusy, "one nanosecond early")
        clock.advance(by: .nanoseconds(1))
        _ = await node.tick()
        #expect(await !node.channelBusy)
    }
}
