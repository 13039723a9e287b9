import DriftMesh
import DriftStore
import DriftSystem
import Foundation
import Hardware
import Logging
import Synchronization
import Testing
import TestSupport

@testable import DriftDaemon

/// A radio that hears nothing and hands every frame it is given to the test; its carrier sense
/// says what the test sets.
private final class RecordingRadio: MeshRadio {
    let maximumFrameBytes = MeshFrame.maxBytes
    let busy = Mutex<Duration?>(nil)
    var channelBusyUntil: Duration? { busy.withLock { $0 } }
    let quiet = Mutex<Duration?>(nil)
    var channelQuietSince: Duration? { quiet.withLock { $0 } }
    /// The frames transmitted, in order.
    let transmitted: AsyncStream<[UInt8]>
    private let transmittedFeed: AsyncStream<[UInt8]>.Continuation
    private let closed: AsyncStream<Void>
    private let closedFeed: AsyncStream<Void>.Continuation

    init() {
        (transmitted, transmittedFeed) = AsyncStream.makeStream()
        (closed, closedFeed) = AsyncStream.makeStream()
    }

    /// The same frames, for a test that drives the clock until one comes.
    let sent = Mutex<[[UInt8]]>([])

    func transmit(_ frame: [UInt8], airtime: Duration) async throws {
        sent.withLock { $0.append(frame) }
        transmittedFeed.yield(frame)
    }

    /// Returns `nil` when the radio is closed (or the caller cancelled); the service calls it once.
    func receive() async throws -> RadioReception? {
        for await _ in closed {}
        return nil
    }

    func close() {
        closedFeed.finish()
        transmittedFeed.finish()
    }
}

/// The mesh service's scheduler on the node's manual clock, and its end.
@Suite("Mesh service: scheduler on the node's clock")
struct MeshServiceTests {
    /// A node on a manual clock and a fresh database in `directory`, and its service on a recording radio.
    private static func service(in directory: TemporaryDirectory, monotonicNow: @escaping @Sendable () -> Duration = { MonotonicTime.now() })
        throws -> (ManualClock, MeshNode, RecordingRadio, MeshService) {
        let clock = ManualClock()
        let node = try MeshNodeTests.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")), clock: clock)
        let radio = RecordingRadio()
        return (clock, node, radio, MeshService(node: node, radio: radio, health: HealthRegistry(), logger: Logger(label: "test"),
                                                monotonicNow: monotonicNow))
    }

    @Test("the scheduler sleeps on the node's clock: the second directed frame goes when the answer's time has passed, not before",
          .timeLimit(.minutes(1)))
    func schedulerSleepsOnTheNodeClock() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-service")
        defer { directory.remove() }
        let (clock, node, radio, service) = try Self.service(in: directory)
        let thread = try await node.threadID()
        let neighbour = BoxKeyPair().nodeID
        _ = try await node.send(.text("join"), to: neighbour, priority: .interactive)
        _ = try await node.send(.text("first line"), to: neighbour, priority: .interactive)
        let running = Task { try await service.run() }
        var transmitted = radio.transmitted.makeAsyncIterator()

        let first = try #require(await transmitted.next())
        #expect(try MeshFrameCodec.parse(first).header.kind == .directed)
        // The first frame's time on air, the next hop's turnaround and its acknowledgement's time on air.
        let ack = LoRaAirtime.duration(
            payloadBytes: MeshFrameCodec.overheadBytes(hasDestination: true, fragmented: false, originTagged: false) + 4,
            modulation: .longFast)
        let answered = LoRaAirtime.duration(payloadBytes: first.count, modulation: .longFast) + .milliseconds(500) + ack
        await clock.waitForSleepers(1)  // the scheduler, holding the second frame back
        clock.advance(to: .init(offset: answered - .nanoseconds(1)))
        #expect(clock.sleeperCount == 1, "the scheduler woke before the answer's time had passed")
        clock.advance(to: .init(offset: answered))
        let second = try #require(await transmitted.next())
        #expect(try MeshFrameCodec.parse(second).header.kind == .directed)

        // The service's end ends the node's thread.
        running.cancel()
        try await running.value
        #expect(await OSThreads.waitUntilGone(thread), "the mesh thread outlived the service")
    }

    @Test("listen before talk: while the radio hears another transmission the frame waits on the node's clock; it goes once the channel is free",
          .timeLimit(.minutes(1)))
    func listensBeforeTalking() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-service-lbt")
        defer { directory.remove() }
        let (clock, node, radio, service) = try Self.service(in: directory)
        radio.busy.withLock { $0 = MonotonicTime.now() + .seconds(3_600) }  // another box's frame on the air
        _ = try await node.send(.text("after you"), to: BoxKeyPair().nodeID, priority: .interactive)
        let running = Task { try await service.run() }
        var transmitted = radio.transmitted.makeAsyncIterator()

        await clock.waitForSleepers(1)  // the scheduler, listening
        #expect(await service.status().radioBusyWaits == 1)
        radio.busy.withLock { $0 = nil }  // the other frame ended
        clock.advance(by: .seconds(3_600) + node.contentionSlot * MeshService.lookSlotsAtMost)  // its end and the longest back-off
        let first = try #require(await transmitted.next())
        #expect(try MeshFrameCodec.parse(first).header.kind == .directed)
        #expect(await service.status().radioBusyWaits == 1)

        running.cancel()
        try await running.value
    }

    @Test("listen before talk looks again every 1…4 slots while another box's frame is on the air, and the frame goes at the first look after it ended",
          .timeLimit(.minutes(1)))
    func looksAgainWhileTheChannelIsBusy() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-service-lbt-looks")
        defer { directory.remove() }
        let now = Mutex(Duration.seconds(1_000))  // the radio's clock, moved with the node's below
        let (clock, node, radio, service) = try Self.service(in: directory, monotonicNow: { now.withLock { $0 } })
        let slot = node.contentionSlot
        let end = Duration.seconds(1_002)  // the frame on the air lasts 2 s more (26 slots at LongFast)
        radio.busy.withLock { $0 = end }
        _ = try await node.send(.text("after you"), to: BoxKeyPair().nodeID, priority: .interactive)
        let running = Task { try await service.run() }
        var transmitted = radio.transmitted.makeAsyncIterator()

        var looks = 0
        while now.withLock({ $0 }) < end {
            await clock.waitForSleepers(1)
            let begun = clock.sleepsBegun
            let wait = clock.now.duration(to: try #require(clock.nextDeadline))
            #expect(wait >= slot && wait <= slot * MeshService.lookSlotsAtMost, "look \(looks): \(wait), not 1…4 slots of \(slot)")
            looks += 1
            now.withLock { $0 += wait }
            clock.advance(by: wait)
            if now.withLock({ $0 }) < end { await clock.waitForSleepsBegun(begun + 1) }  // busy still: another look
        }
        // The look after the frame ended found the channel free: the frame went, at most 4 slots after.
        let first = try #require(await transmitted.next())
        #expect(try MeshFrameCodec.parse(first).header.kind == .directed)
        #expect(now.withLock { $0 } - end <= slot * MeshService.lookSlotsAtMost)
        #expect(MeshService.lookSlotsAtMost == 4)
        #expect(looks >= 6, "2 s are at least 6 looks of at most 4 slots")
        #expect(await service.status().radioBusyWaits == 1, "one frame waited for, however many looks")
        running.cancel()
        try await running.value
    }

    @Test("listen before talk waits for at most 8 frames, then sends; a frame the radio says never ends holds it for 256 looks at most",
          .timeLimit(.minutes(1)))
    func listenBeforeTalkGivesUp() async throws {
        for endless in [false, true] {
            let directory = try TemporaryDirectory(prefix: "mesh-service-lbt-cap")
            defer { directory.remove() }
            let now = Duration.seconds(1_000)  // the radio's clock, standing still
            let (clock, node, radio, service) = try Self.service(in: directory, monotonicNow: { now })
            radio.busy.withLock { $0 = now + .seconds(1) }
            _ = try await node.send(.text("at last"), to: BoxKeyPair().nodeID, priority: .interactive)
            let running = Task { try await service.run() }
            var looks = 0, busyWaits = 0  // read while the scheduler sleeps: the frames after ours wait too
            for _ in 0..<1_000 {
                await clock.waitForSleepers(1)
                if !radio.sent.withLock({ $0.isEmpty }) { break }
                looks += 1
                busyWaits = await service.status().radioBusyWaits
                // Another frame on the air at every look, or the same one that never ends.
                if !endless { radio.busy.withLock { $0 = now + .seconds(1) + .nanoseconds(looks) } }
                clock.advanceToNextDeadline()
            }
            let first = try #require(radio.sent.withLock { $0.first })
            #expect(try MeshFrameCodec.parse(first).header.kind == .directed)
            if endless {
                #expect(busyWaits == 1)
                #expect(looks == MeshService.looksAtMost, "endless: \(looks) looks")
            } else {
                #expect(busyWaits == MeshService.roundsAtMost)
                #expect(looks == MeshService.roundsAtMost, "\(looks) looks")
            }
            running.cancel()
            try await running.value
        }
    }

    @Test("a relay of another box's broadcast ready as the channel turns quiet keeps its slot; the box's own frames draw 1…4 slots",
          .timeLimit(.minutes(1)))
    func relayKeepsItsSlotAsTheChannelTurnsQuiet() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-service-quiet-relay")
        defer { directory.remove() }
        let now = Duration.seconds(1_000)  // the radio's clock, standing still: every frame is ready just as a frame ended
        let (clock, node, radio, service) = try Self.service(in: directory, monotonicNow: { now })
        radio.quiet.withLock { $0 = now - .milliseconds(1) }
        let other = BoxKeyPair()
        await node.receive(MeshNodeTests.reception(try MeshNodeTests.frame(text: "pass me on", packetID: 5, origin: other, hopStart: 3)))
        let running = Task { try await service.run() }
        func isTheRelay(_ frame: [UInt8]) -> Bool {
            guard let header = try? MeshFrameCodec.parse(frame).header else { return false }
            return header.kind == .broadcast && header.origin == other.nodeID
        }
        // Time passes until the relay has gone: the node's hello and start digest first, each
        // backing off (8 rounds, the radio's clock standing still), the relay at the end of its delay.
        for _ in 0..<2_000 where !radio.sent.withLock({ $0.contains(where: isTheRelay) }) {
            await clock.waitForSleepers(1)
            clock.advance(by: .milliseconds(250))
        }
        let sent = radio.sent.withLock { $0 }
        let relay = try #require(sent.firstIndex(where: isTheRelay), "the relay went")
        #expect(try MeshFrameCodec.parse(sent[relay]).header.hopsTaken == 1)
        let ownBefore = sent[..<relay].count
        #expect(await service.status().radioQuietWaits == 8 * ownBefore, "\(ownBefore) own frames before the relay, 8 rounds each; none for the relay")
        running.cancel()
        try await running.value
    }

    @Test("a frame ready less than a slot after the channel turned quiet draws 1…4 slots first; one ready a slot or more after goes at once",
          .timeLimit(.minutes(1)))
    func quietChannelBacksOff() async throws {
        for (since, waits) in [(Duration.milliseconds(1), 1), (MeshRouterConfiguration.standard.slot, 0)] {
            let directory = try TemporaryDirectory(prefix: "mesh-service-quiet")
            defer { directory.remove() }
            let now = Mutex(Duration.seconds(1_000))  // the radio's clock, standing still
            let (clock, node, radio, service) = try Self.service(in: directory, monotonicNow: { now.withLock { $0 } })
            #expect(node.contentionSlot == MeshRouterConfiguration.standard.slot)
            radio.quiet.withLock { $0 = .seconds(1_000) - since }  // a frame heard ended `since` ago
            _ = try await node.send(.text("right after"), to: BoxKeyPair().nodeID, priority: .interactive)
            let running = Task { try await service.run() }
            var transmitted = radio.transmitted.makeAsyncIterator()
            if waits > 0 {
                await clock.waitForSleepers(1)  // the scheduler, backing off
                #expect(await service.status().radioQuietWaits == 1)
                now.withLock { $0 += node.contentionSlot * MeshService.lookSlotsAtMost }
                clock.advance(by: node.contentionSlot * MeshService.lookSlotsAtMost)  // the longest back-off
            }
            let first = try #require(await transmitted.next())
            #expect(try MeshFrameCodec.parse(first).header.kind == .directed)
            #expect(await service.status().radioQuietWaits == waits, "quiet since \(since)")
            #expect(await service.status().radioBusyWaits == 0)
            running.cancel()
            try await running.value
        }
    }

    @Test("the box's own frames wait for the answer a box it cannot hear owes a neighbour whose directed frame it just heard, and go when that answer is over",
          .timeLimit(.minutes(1)))
    func holdsForAHiddenAnswer() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-service-hidden-answer")
        defer { directory.remove() }
        let (clock, node, radio, service) = try Self.service(in: directory)
        let sealer = try MeshSealer(networkKey: MeshNodeTests.networkKey)
        let b = BoxKeyPair(), hidden = BoxKeyPair()
        let expiry = MeshHeader.expiryMinute(now: Date(), lifetime: 600)
        // B's hello lists the hidden box (and this one); then B's directed frame to it ends now.
        let hello = HelloPayload(publicKey: b.publicKeyBytes, neighbours: [.init(id: node.me, bucket: 3), .init(id: hidden.nodeID, bucket: 3)])
        await node.receive(MeshNodeTests.reception(try sealer.seal(
            header: MeshHeader(kind: .hello, origin: b.nodeID, packetID: 1, hopStart: 0, expiresAtMinute: expiry), plaintext: hello.encoded())))
        await node.receive(MeshNodeTests.reception(try sealer.seal(
            header: MeshHeader(kind: .directed, origin: b.nodeID, packetID: 2, destination: hidden.nodeID, hopStart: 3, wantsAck: true,
                               expiresAtMinute: expiry),
            plaintext: MeshMessage.text("for the box out of range").encoded)))
        let held = await node.answerHeldUntil()
        #expect(held > node.monotonicNow, "nothing held")
        _ = try await node.send(.text("mine"), to: BoxKeyPair().nodeID, priority: .interactive)
        let running = Task { try await service.run() }
        func ownSent() -> Int {
            radio.sent.withLock { $0.filter { (try? MeshFrameCodec.parse($0).header.origin) == node.me }.count }
        }
        await clock.waitForSleepers(1)  // the scheduler, holding the box's first own frame
        clock.advance(to: .init(offset: held - .nanoseconds(1)))
        await clock.waitForSleepers(1)
        #expect(ownSent() == 0, "an own frame went before the answer's time was over")
        #expect(await service.status().radioAnswerWaits == 1)
        clock.advance(to: .init(offset: held))
        for _ in 0..<1_000 where ownSent() == 0 { await Task.yield() }
        #expect(ownSent() >= 1, "the frame held never went")
        #expect(await service.status().radioAnswerWaits == 1, "held again after the answer's time")
        running.cancel()
        try await running.value
    }
}
