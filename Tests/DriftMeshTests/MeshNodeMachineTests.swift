import DriftMesh
import Foundation
import Testing

/// One box's node machine on in-memory memory, driven with explicit instants: `t` is the
/// monotonic offset, the wall clock is `epoch + t`.
struct MachineBox {
    static let networkKey = Array("drift-mesh-node-test-key-32bytes".utf8)
    static let epoch = Date(timeIntervalSince1970: 1_780_000_000)

    var machine: MeshNodeMachine<InMemoryNodeMemory>
    let keyPair: BoxKeyPair
    var me: NodeID { keyPair.nodeID }

    init(keyPair: BoxKeyPair = BoxKeyPair(), memory: InMemoryNodeMemory = InMemoryNodeMemory(), router: MeshRouterConfiguration = .standard,
         retrySpacing: Duration = .seconds(15), budgetLimit: Duration = .seconds(360), seed: UInt64 = 1,
         configure: (inout MeshNodeMachine<InMemoryNodeMemory>.Settings) -> Void = { _ in }) throws {
        self.keyPair = keyPair
        var settings = MeshNodeMachine<InMemoryNodeMemory>.Settings(hopLimit: 3, messageLifetime: 3_600, modulation: .longFast,
                                                                     router: router, retrySpacing: retrySpacing)
        configure(&settings)
        machine = try MeshNodeMachine(keyPair: keyPair, networkKey: Self.networkKey, memory: memory,
                                      budget: AirtimeBudget(window: .seconds(3_600), limit: budgetLimit), settings: settings, seed: seed)
    }

    /// Retries on their exact waits, without the random extra (``MeshNodeMachine/Settings/retryJitter``):
    /// for the tests that check a retry's wait to the nanosecond (MeshNodeRetryJitterTests checks the extra).
    static func exactRetries(_ settings: inout MeshNodeMachine<InMemoryNodeMemory>.Settings) {
        settings.retryJitter = 0
        settings.outboxRetryJitter = 0
    }

    static func time(_ t: Duration) -> MeshNodeTime {
        MeshNodeTime(monotonic: t, wall: epoch.addingTimeInterval(RetrySchedule.seconds(t)))
    }

    @discardableResult
    mutating func handle(_ input: MeshNodeInput, at t: Duration) -> [MeshNodeAction] {
        machine.handle(input, at: Self.time(t))
    }

    @discardableResult
    mutating func hear(_ bytes: [UInt8], at t: Duration, rssi: Double = -90, snr: Double = 5) -> [MeshNodeAction] {
        handle(.heard(bytes: bytes, rssi: rssi, snr: snr), at: t)
    }

    /// Runs the timers; returns when the machine wants them again.
    @discardableResult
    mutating func timer(at t: Duration) -> Duration {
        for case .wake(let at) in handle(.timer, at: t) { return at }
        Issue.record("the timer input asked for no wake-up")
        return t
    }

    /// The radio is free at `t`: the frame to send, or when to ask again.
    mutating func radioIdle(at t: Duration) -> (frame: OutgoingFrame?, wake: Duration?) {
        for action in handle(.radioIdle, at: t) {
            if case .transmit(let frame) = action { return (frame, nil) }
            if case .wake(let at) = action { return (nil, at) }
        }
        return (nil, nil)
    }

    mutating func send(_ text: String, to destination: NodeID? = nil, priority: TransmitPriority = .normal,
                       at t: Duration) throws -> MeshNodeReceipt {
        for action in handle(.send(MeshNodeMessage(payload: [1] + Array(text.utf8), destination: destination, priority: priority)), at: t) {
            if case .stored(let receipt) = action { return receipt }
            if case .refused(let error) = action { throw error }
        }
        throw MachineBoxError.noAnswer
    }

    var counters: MeshCounters { machine.allCounters }

    /// A frame from another box, sealed with `key`.
    static func frame(_ text: String, kind: FrameKind = .broadcast, packetID: UInt32, origin: BoxKeyPair, destination: NodeID? = nil,
                      key: [UInt8] = networkKey, lifetime: TimeInterval = 3_600, now: Date = epoch, hopStart: UInt8 = 0) throws -> [UInt8] {
        let header = MeshHeader(kind: kind, origin: origin.nodeID, packetID: packetID, destination: destination, hopStart: hopStart,
                                wantsAck: kind == .directed, expiresAtMinute: MeshHeader.expiryMinute(now: now, lifetime: lifetime))
        return try MeshSealer(networkKey: key).seal(header: header, plaintext: [1] + Array(text.utf8))
    }

    static func kind(_ frame: OutgoingFrame) throws -> FrameKind {
        try MeshFrameCodec.parse(frame.bytes).header.kind
    }
}

enum MachineBoxError: Error { case noAnswer }

extension [MeshNodeAction] {
    var deliveries: [MeshNodeDelivery] { compactMap { if case .deliver(let d) = $0 { d } else { nil } } }
    var confirmations: [PacketKey] { compactMap { if case .confirmed(let k) = $0 { k } else { nil } } }
    var texts: [String] { deliveries.map { String(decoding: $0.payload.dropFirst(), as: UTF8.self) } }
}

/// The node's decisions, without a radio, a clock or a database: frames in, verdicts counted,
/// the outbox and its retries, acknowledgements, the quiet rule, fragments lost and found.
@Suite("Mesh node machine: inputs in, actions out")
struct MeshNodeMachineTests {
    @Test("a good frame is delivered once; forged, altered, truncated, foreign and expired ones are dropped and counted")
    func verdicts() throws {
        var box = try MachineBox()
        let other = BoxKeyPair()
        let good = try MachineBox.frame("hello", packetID: 7, origin: other)
        var delivered = box.hear(good, at: .zero).texts
        delivered += box.hear(good, at: .seconds(1)).texts  // a relay's copy, or a replay
        var altered = good
        altered[altered.count - 20] ^= 0x01
        box.hear(altered, at: .seconds(2))
        box.hear(Array(good.prefix(10)), at: .seconds(3))
        box.hear(try MachineBox.frame("x", packetID: 8, origin: other, key: Array("another-mesh-key-of-32-bytes-!!!".utf8)), at: .seconds(4))
        box.hear(try MachineBox.frame("old", packetID: 9, origin: other, lifetime: 60, now: MachineBox.epoch.addingTimeInterval(-600)),
                 at: .seconds(5))
        let counters = box.counters
        #expect(delivered == ["hello"])
        #expect(counters.heard == 6)
        #expect(counters.delivered == 1)
        #expect(counters.duplicates == 1)
        #expect(counters.forged + counters.foreign == 2, "\(counters)")
        #expect(counters.malformed.values.reduce(0, +) == 1, "\(counters.malformed)")
        #expect(counters.expired == 1)
    }

    @Test("the seen-set is the memory's: a machine made again on the same memory drops a replay")
    func replayAfterRestart() throws {
        let me = BoxKeyPair()
        let good = try MachineBox.frame("only once", packetID: 42, origin: BoxKeyPair())
        var first = try MachineBox(keyPair: me)
        #expect(first.hear(good, at: .zero).texts == ["only once"])
        var restarted = try MachineBox(keyPair: me, memory: first.machine.memory)
        #expect(restarted.hear(good, at: .zero).deliveries.isEmpty)
        #expect(restarted.counters.duplicates == 1)
    }

    @Test("a directed message is acknowledged, and acknowledged again when its sender retries (the first ack was lost)")
    func reacknowledge() throws {
        var box = try MachineBox()
        let frame = try MachineBox.frame("for you", kind: .directed, packetID: 99, origin: BoxKeyPair(), destination: box.me, hopStart: 3)
        #expect(box.hear(frame, at: .zero).texts == ["for you"])
        #expect(box.counters.sentOwn == 1)  // the ack
        #expect(box.hear(frame, at: .seconds(30)).deliveries.isEmpty)
        #expect(box.counters.sentOwn == 2)
        #expect(box.counters.delivered == 1)
    }

    @Test("a neighbour's digest that lacks a held packet queues a catch-up copy; another box sending it first takes ours off the queue")
    func catchUpSuppressed() throws {
        var fastRelays = MeshRouterConfiguration.standard
        fastRelays.slot = .microseconds(10)  // the relay planned on the first copy waits under 3 ms
        var box = try MachineBox(router: fastRelays)
        let held = try MachineBox.frame("catch me up", packetID: 5, origin: BoxKeyPair(), hopStart: 3)
        box.hear(held, at: .zero)
        box.timer(at: .zero)
        var t = Duration.zero
        while case let (frame?, _) = box.radioIdle(at: t) { t += frame.airtime }  // the hello and the start digest
        box.timer(at: t)
        while case let (frame?, _) = box.radioIdle(at: t) { t += frame.airtime }  // the relay
        let sealer = try MeshSealer(networkKey: MachineBox.networkKey)
        let digestHeader = MeshHeader(kind: .digest, origin: BoxKeyPair().nodeID, packetID: 1, hopStart: 0,
                                      expiresAtMinute: MeshHeader.expiryMinute(now: MachineBox.epoch, lifetime: 600))
        box.hear(try sealer.seal(header: digestHeader, plaintext: SyncDigest(held: []).encoded()), at: t)
        #expect(box.counters.framesResent == 0, "answered without its random delay")
        t = box.timer(at: t)  // the answer's delay (MeshNodeCatchUpTests)
        box.timer(at: t)
        #expect(box.counters.framesResent == 1)
        var relayed = try MeshFrameCodec.relay(held, by: BoxKeyPair().nodeID)
        relayed = try MeshFrameCodec.relay(relayed, by: BoxKeyPair().nodeID)
        box.hear(relayed, at: t)
        #expect(box.counters.resendsSuppressed == 1)
    }

    /// A box that relayed a directed message for two other boxes once, by 50 ms (by 300 slots
    /// with a slot longer than 10 µs), and that frame.
    /// The frame as the box heard it (one hop taken: an upstream relay's copy) and as its
    /// origin sends it (no hops taken).
    static func relayedOnce(retrySpacing: Duration, slot: Duration = .microseconds(10), seed: UInt64 = 1,
                            origin: BoxKeyPair = BoxKeyPair(), destination: NodeID = BoxKeyPair().nodeID,
                            configure: (inout MeshNodeMachine<InMemoryNodeMemory>.Settings) -> Void = { _ in })
        throws -> (box: MachineBox, frame: [UInt8], original: [UInt8]) {
        var fastRelays = MeshRouterConfiguration.standard
        fastRelays.slot = slot  // at 10 µs a relay waits at most 288 slots: under 3 ms
        var box = try MachineBox(router: fastRelays, retrySpacing: retrySpacing, seed: seed, configure: configure)
        let original = try MachineBox.frame("onwards", kind: .directed, packetID: 11, origin: origin,
                                            destination: destination, hopStart: 3)
        let frame = try MeshFrameCodec.relay(original, by: BoxKeyPair().nodeID)
        box.hear(frame, at: .zero)
        box.timer(at: max(.milliseconds(50), slot * 300))  // past the longest relay delay
        #expect(box.counters.sentRelays == 1)
        return (box, frame, original)
    }

    @Test("a copy straight from its origin, heard again, is relayed again whenever it comes: the origin sent it again")
    func originsCopyRelayedAgain() throws {
        var (box, frame, original) = try Self.relayedOnce(retrySpacing: .seconds(15))
        box.hear(frame, at: .seconds(1))  // another relay's copy: a duplicate
        #expect(box.counters.retriesRelayed == 0)
        box.hear(original, at: .seconds(9))  // the origin's quick retry, 9 s later
        #expect(box.counters.retriesRelayed == 1)
        box.timer(at: .seconds(9) + .milliseconds(1))  // its random delay: at most 64 slots of 10 µs
        #expect(box.counters.sentRelays == 2)
    }

    @Test("the boxes that relayed a directed message pass its retry on after a random delay within the router's jitter, not together at once")
    func retryRelaysJittered() throws {
        let slot = MeshRouterConfiguration.standard.slot
        let window = slot * MeshRouterConfiguration.standard.jitterSlots
        let origin = BoxKeyPair(), destination = BoxKeyPair().nodeID
        var instants: [Duration] = []
        for seed: UInt64 in 1...4 {
            var (box, _, original) = try Self.relayedOnce(retrySpacing: .seconds(15), slot: slot, seed: seed,
                                                          origin: origin, destination: destination)
            while box.radioIdle(at: .seconds(30)).frame != nil {}
            let heard = Duration.seconds(40)
            box.hear(original, at: heard)  // the origin's retry, heard by every relay at once
            var t = heard
            var passedOn: Duration?
            while passedOn == nil, t <= heard + window {
                let next = box.timer(at: t)
                if box.counters.sentRelays == 2 { passedOn = t } else { t = next }
            }
            let at = try #require(passedOn, "not passed on within the jitter (\(window))")
            instants.append(at - heard)
        }
        #expect(Set(instants).count > 1, "every relay passed the retry on at the same instant: \(instants)")
        // The rule before: at once.
        var (atOnce, _, original) = try Self.relayedOnce(retrySpacing: .seconds(15)) { $0.retryRelaysJittered = false }
        atOnce.hear(original, at: .seconds(40))
        #expect(atOnce.counters.sentRelays == 2)
    }

    @Test("a relay that hears another box pass the retry on first drops its own — unless the destination is its neighbour")
    func retryRelaysSuppressed() throws {
        let slot = MeshRouterConfiguration.standard.slot
        let window = slot * MeshRouterConfiguration.standard.jitterSlots
        for neighbour in [false, true] {
            let origin = BoxKeyPair(), destination = BoxKeyPair()
            var (box, _, original) = try Self.relayedOnce(retrySpacing: .seconds(15), slot: slot, origin: origin, destination: destination.nodeID)
            if neighbour {
                let hello = MeshHeader(kind: .hello, origin: destination.nodeID, packetID: 1, hopStart: 0,
                                       expiresAtMinute: MeshHeader.expiryMinute(now: MachineBox.epoch, lifetime: 600))
                box.hear(try MeshSealer(networkKey: MachineBox.networkKey).seal(
                    header: hello, plaintext: HelloPayload(publicKey: destination.publicKeyBytes, neighbours: []).encoded()), at: .seconds(30))
            }
            box.hear(original, at: .seconds(40))  // the origin's retry
            #expect(box.counters.retriesRelayed == 1)
            box.hear(try MeshFrameCodec.relay(original, by: BoxKeyPair().nodeID), at: .seconds(40))  // another relay, first
            var t = Duration.seconds(40)
            while t <= .seconds(40) + window { t = box.timer(at: t) }
            #expect(box.counters.sentRelays == (neighbour ? 2 : 1), neighbour ? "the destination's neighbour kept its copy" : "passed on although another box did")
            #expect(box.counters.retryRelaysSuppressed == (neighbour ? 0 : 1))
        }
    }

    @Test("a relay passes a directed message's end-to-end retry on when heard retrySpacing later, not a nanosecond earlier")
    func retriesRelayedAgain() throws {
        let spacing = Duration.seconds(15)
        var (box, frame, _) = try Self.relayedOnce(retrySpacing: spacing)
        let relayedAt = Duration.milliseconds(50)
        box.hear(frame, at: relayedAt)  // a neighbour's copy right away: an ordinary duplicate
        box.hear(frame, at: relayedAt + spacing - .nanoseconds(1))
        #expect(box.counters.retriesRelayed == 0, "relayed again before retrySpacing had passed")
        #expect(box.counters.duplicates == 2)
        box.hear(frame, at: relayedAt + spacing)
        #expect(box.counters.retriesRelayed == 1)
        box.timer(at: relayedAt + spacing + .milliseconds(1))
        #expect(box.counters.sentRelays == 2)
        #expect(box.counters.delivered == 0)  // not for this box
    }

    @Test("a sent message is in the outbox before anything is queued; the queue releases one frame per time on air")
    func sendIsStoredFirst() throws {
        var box = try MachineBox()
        let receipt = try box.send(String(repeating: "long text ", count: 59), at: .zero)
        #expect(receipt.frames == 3)
        let id = PacketKey(origin: box.me, packetID: receipt.packetID)
        #expect(box.machine.memory.outbox[id]?.state == .queued)
        #expect(box.machine.queuedFrames == 0, "a frame was queued before the outbox handed it out")
        box.timer(at: .zero)
        #expect(box.machine.memory.outbox[id]?.state == .sent)
        var t = Duration.zero
        var sent: [OutgoingFrame] = []
        while sent.count < 4 {
            let (frame, wake) = box.radioIdle(at: t)
            if let frame {
                #expect(frame.bytes.count <= MeshFrame.maxBytes)
                sent.append(frame)
                continue
            }
            guard let wake else { break }
            #expect(wake == t + (sent.last?.airtime ?? .zero), "the next frame waits for more than the last one's time on air")
            t = wake
        }
        #expect(sent.count == 4)  // the hello and three fragments
        #expect(try sent.filter { try MachineBox.kind($0) == .broadcast }.count == 3)
    }

    @Test("the time the airtime budget holds the box's frames back is counted from the first wait to the frame's release")
    func budgetHeldTime() throws {
        // 5 s an hour (4.5 s without the reserve): the hello and two of the three fragments
        // (1.8 s each at LongFast) fit, the third waits until the first has aged out.
        var box = try MachineBox(budgetLimit: .seconds(5))
        _ = try box.send(String(repeating: "long text ", count: 59), at: .zero)
        box.timer(at: .zero)
        var t = Duration.zero
        var onAirUntil = Duration.zero
        var sent = 0
        var expected = Duration.zero
        while sent < 4 {
            let (frame, wake) = box.radioIdle(at: t)
            if let frame {
                sent += 1
                onAirUntil = t + frame.airtime
                continue
            }
            guard let wake else { break }
            if t >= onAirUntil {
                // Not the radio: the budget. Its spell is on until the frame goes.
                #expect(box.machine.budgetHeldTotal(at: t + .seconds(1)) == expected + .seconds(1))
                expected += wake - t
            }
            t = wake
        }
        #expect(sent == 4)
        #expect(expected > .seconds(3_000), "the budget held nothing back: \(expected)")
        #expect(box.machine.budgetHeld(at: t + .seconds(60)).values.reduce(.zero, +) == expected)
        #expect(box.machine.budgetHeldTotal(at: t + .seconds(60)) == expected)
    }

    @Test("checkFits refuses what send would refuse for its size, and the refused send stores nothing")
    func checkFitsAgreesWithSend() throws {
        var box = try MachineBox()
        let small = [1] + Array(String(repeating: "long text ", count: 59).utf8)
        let large = [1] + Array(String(repeating: "long text ", count: 400).utf8)
        try box.machine.checkFits(small)
        #expect(throws: MeshNodeMachine<InMemoryNodeMemory>.SendError.self) { try box.machine.checkFits(large) }
        #expect(throws: MeshNodeMachine<InMemoryNodeMemory>.SendError.self) {
            try box.send(String(repeating: "long text ", count: 400), at: .zero)
        }
        #expect(box.machine.memory.outbox.isEmpty)
        #expect(try box.send(String(repeating: "long text ", count: 59), at: .zero).frames == 3)
    }

    @Test("quiet rule: while a neighbour sends the rest of a fragmented message, the box keeps its own frames back")
    func quietDuringFragments() throws {
        var box = try MachineBox()
        let base = MeshHeader(kind: .broadcast, origin: BoxKeyPair().nodeID, packetID: 100, hopStart: 0,
                              expiresAtMinute: MeshHeader.expiryMinute(now: MachineBox.epoch, lifetime: 3_600))
        let pieces = try MeshSealer(networkKey: MachineBox.networkKey).sealPayload(Array(repeating: 0x41, count: 500), base: base, originKey: nil)
        #expect(pieces.count == 3)
        let piece = LoRaAirtime.duration(payloadBytes: pieces[0].count, modulation: .longFast)
        box.hear(pieces[0], at: .zero)
        _ = try box.send("mine", at: .zero)
        box.timer(at: .zero)
        let (held, wake) = box.radioIdle(at: .zero)
        #expect(held == nil, "a frame went out while the neighbour was still sending")
        let until = try #require(wake)
        #expect(until == piece * 2 + MeshRouterConfiguration.standard.slot * 2)
        box.hear(pieces[1], at: piece)
        #expect(box.hear(pieces[2], at: piece * 2).texts.count == 1)
        #expect(box.radioIdle(at: until - .nanoseconds(1)).frame == nil, "a frame went out before the quiet time was over")
        #expect(box.radioIdle(at: until).frame != nil)
    }

    @Test("quiet rule: after a directed frame that wants an acknowledgement, the channel stays free for the answer")
    func waitsForTheAnswer() throws {
        var box = try MachineBox()
        let neighbour = BoxKeyPair().nodeID
        _ = try box.send("join", to: neighbour, priority: .interactive, at: .zero)
        _ = try box.send("first line", to: neighbour, priority: .interactive, at: .zero)
        box.timer(at: .zero)
        let first = try #require(box.radioIdle(at: .zero).frame)
        let ack = LoRaAirtime.duration(
            payloadBytes: MeshFrameCodec.overheadBytes(hasDestination: true, fragmented: false, originTagged: false) + 4,
            modulation: .longFast)
        let (second, wake) = box.radioIdle(at: .zero)
        #expect(second == nil)
        #expect(wake == first.airtime + .milliseconds(500) + ack)
        #expect(box.counters.answerWaits == 1)
        #expect(box.radioIdle(at: first.airtime + .milliseconds(500) + ack - .nanoseconds(1)).frame == nil)
        let next = try #require(box.radioIdle(at: first.airtime + .milliseconds(500) + ack).frame)
        #expect(try MachineBox.kind(next) == .directed)
        // Broadcasts want no answer.
        var other = try MachineBox()
        _ = try other.send("to all", at: .zero)
        other.timer(at: .zero)
        #expect(other.radioIdle(at: .zero).frame != nil)
        #expect(other.counters.answerWaits == 0)
    }

    @Test("quiet for a hidden answer: a neighbour's directed frame for a box this one does not hear holds its own frames for that box's answer")
    func quietForAHiddenAnswer() throws {
        let ack = LoRaAirtime.duration(
            payloadBytes: MeshFrameCodec.overheadBytes(hasDestination: true, fragmented: false, originTagged: false) + 4,
            modulation: .longFast)
        // The turnaround, the ack, the answerer's quiet back-off (4 slots), then 1…4 slots drawn.
        let slot = MeshRouterConfiguration.standard.slot
        let hold = .milliseconds(500) + ack + slot * QuietBackOff.windowSlots
        let t = Duration.seconds(1)
        /// Box C hears B's hello (listing `listed`, and C) and, if `hearsDestination`, the
        /// destination's; then B's frame of `kind` to the destination, ending at `t`. Returns
        /// until when C's own frames are held (`nil`: not held), and the counter.
        func scene(kind: FrameKind = .directed, listed: Bool = true, hearsDestination: Bool = false, bridged: Bool = false, seed: UInt64 = 1,
                   configure: (inout MeshNodeMachine<InMemoryNodeMemory>.Settings) -> Void = { _ in }) throws -> (held: Duration?, waits: Int) {
            var c = try MachineBox(seed: seed, configure: configure)
            let b = BoxKeyPair(), destination = BoxKeyPair()
            c.hear(try MeshNodeHelloTests.hello(from: b, keyed: true, listing: [c.me] + (listed ? [destination.nodeID] : []), packetID: 1), at: .zero)
            if hearsDestination {
                c.hear(try MeshNodeHelloTests.hello(from: destination, keyed: true, listing: [c.me, b.nodeID], packetID: 1), at: .zero)
            }
            _ = try c.send("mine", at: t)
            c.timer(at: t)
            let frame = try MachineBox.frame("for you", kind: kind, packetID: 7, origin: b, destination: kind == .directed ? destination.nodeID : nil)
            if bridged { c.handle(.bridged(frame), at: t) } else { c.hear(frame, at: t) }
            // The machine hands the frame over: the driver's listen before talk holds it.
            #expect(c.radioIdle(at: t).frame != nil)
            let held = c.machine.answerHeldUntil
            return (held > t ? held : nil, c.counters.hiddenAnswerWaits)
        }
        var draws: Set<Duration> = []
        for seed in UInt64(1)...20 {
            let held = try scene(seed: seed)
            let until = try #require(held.held)
            #expect(until >= t + hold + slot && until <= t + hold + slot * QuietBackOff.windowSlots, "\(held)")
            #expect(held.waits == 1)
            draws.insert(until)
        }
        #expect(draws.count > 1, "every box held by one answer would start at the same instant")
        // The destination is a neighbour: its answer is heard (carrier sense), no wait.
        #expect(try scene(hearsDestination: true) == (nil, 0))
        // B's hello does not list the destination: a relay, not the answerer, hears B's frame.
        #expect(try scene(listed: false) == (nil, 0))
        // A broadcast wants no answer.
        #expect(try scene(kind: .broadcast) == (nil, 0))
        // A frame a gateway's bridge brought from another mesh was never on this box's air.
        #expect(try scene(bridged: true) == (nil, 0))
        // Off: the rule before.
        #expect(try scene { $0.quietForHiddenAnswers = false } == (nil, 0))
    }

    @Test("an unacknowledged directed message is sent again on the outbox schedule: 30 s, then 45 s, never earlier")
    func retriesOnTheSchedule() throws {
        var box = try MachineBox(configure: MachineBox.exactRetries)
        let receipt = try box.send("are you there", to: BoxKeyPair().nodeID, at: .zero)
        var attempts: [Duration] = []
        var t = Duration.zero
        while t <= .seconds(90) {
            let wake = box.timer(at: t)
            while case let (frame?, _) = box.radioIdle(at: t) {
                if try MachineBox.kind(frame) == .directed { attempts.append(t) }
            }
            t = min(wake, t + .milliseconds(500))
        }
        #expect(attempts.count == 3, "\(attempts)")
        guard attempts.count == 3 else { return }
        #expect(attempts[0] == .zero)
        // The outbox is looked at every 5 s while a message waits: each retry within 5 s of its due time.
        #expect(attempts[1] >= .seconds(30) && attempts[1] < .seconds(35), "\(attempts)")
        #expect(attempts[2] >= attempts[1] + .seconds(45) && attempts[2] < attempts[1] + .seconds(50), "\(attempts)")
        let id = PacketKey(origin: box.me, packetID: receipt.packetID)
        #expect(box.machine.memory.outbox[id]?.attempts == 3)
    }

    @Test("two boxes: a directed message goes out, its destination delivers and acknowledges, the sender is confirmed once and stops")
    func acknowledgementEndsRetries() throws {
        var a = try MachineBox(seed: 1)
        var b = try MachineBox(seed: 2)
        let receipt = try a.send("hello b", to: b.me, at: .zero)
        a.timer(at: .zero)
        var t = Duration.zero
        var delivered: [String] = []
        var confirmed: [PacketKey] = []
        var directedSent = 0
        // Both boxes hear each other perfectly and at once (no time on air, no collisions).
        while t < .seconds(120) {
            for sender in [0, 1] {
                var from = sender == 0 ? a : b
                var to = sender == 0 ? b : a
                from.timer(at: t)
                while case let (frame?, _) = from.radioIdle(at: t) {
                    if sender == 0, try MachineBox.kind(frame) == .directed { directedSent += 1 }
                    let heard = to.hear(frame.bytes, at: t)
                    delivered += heard.texts
                    confirmed += heard.confirmations
                }
                if sender == 0 { (a, b) = (from, to) } else { (b, a) = (from, to) }
            }
            t += .milliseconds(250)
        }
        #expect(delivered == ["hello b"])
        #expect(confirmed == [PacketKey(origin: a.me, packetID: receipt.packetID)])
        #expect(directedSent == 1, "the message was retried after its acknowledgement")
        #expect(a.counters.acksReceived == 1)
        #expect(a.machine.memory.outbox[PacketKey(origin: a.me, packetID: receipt.packetID)]?.state == .delivered)
    }

    @Test("fragment loss: a directed message missing a piece completes from its sender's retry, is delivered once and acknowledged")
    func fragmentLostThenRetried() throws {
        var box = try MachineBox()
        let origin = BoxKeyPair()
        let base = MeshHeader(kind: .directed, origin: origin.nodeID, packetID: 200, destination: box.me, hopStart: 3, wantsAck: true,
                              expiresAtMinute: MeshHeader.expiryMinute(now: MachineBox.epoch, lifetime: 3_600))
        let pieces = try MeshSealer(networkKey: MachineBox.networkKey).sealPayload([1] + Array(repeating: 0x42, count: 480), base: base, originKey: nil)
        #expect(pieces.count == 3)
        box.hear(pieces[0], at: .zero)
        box.hear(pieces[2], at: .seconds(4))  // piece 1 lost on the air
        #expect(box.counters.delivered == 0)
        #expect(box.counters.sentOwn == 0, "acknowledged an incomplete message")
        // The sender's retry, 30 s later: every piece again, all but one duplicates here.
        var delivered = 0
        for (index, piece) in pieces.enumerated() {
            delivered += box.hear(piece, at: .seconds(30) + .seconds(2) * index).deliveries.count
        }
        #expect(delivered == 1)
        #expect(box.counters.delivered == 1)
        // The ack, and none for the retry's last piece: 2 s after that ack, within the margin,
        // it is the same retry (`acksRepeatedForRetriesOnly`).
        #expect(box.counters.sentOwn == 1)
        #expect(box.counters.acksNotRepeated == 1)
    }

    @Test("fragment loss: a broadcast missing a piece is never delivered, and its partial expires")
    func broadcastFragmentLost() throws {
        var box = try MachineBox()
        let base = MeshHeader(kind: .broadcast, origin: BoxKeyPair().nodeID, packetID: 300, hopStart: 0,
                              expiresAtMinute: MeshHeader.expiryMinute(now: MachineBox.epoch, lifetime: 3_600))
        let pieces = try MeshSealer(networkKey: MachineBox.networkKey).sealPayload([1] + Array(repeating: 0x43, count: 480), base: base, originKey: nil)
        box.hear(pieces[0], at: .zero)
        box.hear(pieces[2], at: .seconds(4))
        var t = Duration.zero
        while t < .seconds(600) { t = max(box.timer(at: t), t + .seconds(1)) }
        #expect(box.counters.delivered == 0)
        // The missing piece, late: the partial is gone, so it cannot complete the message.
        #expect(box.hear(pieces[1], at: t).deliveries.isEmpty)
    }

    @Test("an acknowledgement heard twice confirms once")
    func ackConfirmsOnce() throws {
        var a = try MachineBox()
        let b = BoxKeyPair()
        let receipt = try a.send("ping", to: b.nodeID, at: .zero)
        a.timer(at: .zero)
        var payload: [UInt8] = []
        withUnsafeBytes(of: receipt.packetID.bigEndian) { payload.append(contentsOf: $0) }
        let ackHeader = MeshHeader(kind: .ack, origin: b.nodeID, packetID: 9, destination: a.me, hopStart: 3,
                                   expiresAtMinute: MeshHeader.expiryMinute(now: MachineBox.epoch, lifetime: 3_600))
        let ack = try MeshSealer(networkKey: MachineBox.networkKey).seal(header: ackHeader, plaintext: payload)
        #expect(a.hear(ack, at: .seconds(2)).confirmations == [PacketKey(origin: a.me, packetID: receipt.packetID)])
        #expect(a.hear(ack, at: .seconds(3)).confirmations.isEmpty)
        #expect(a.counters.acksReceived == 1)
        #expect(try a.machine.memory.waitingOutgoingCount() == 0)
    }

    /// An idle box woke twice a minute: for its housekeeping, and for the outbox's look a
    /// minute after the last message sent, at another instant (docs/performance.md, "Idle").
    @Test("an idle box looks at its outbox on its housekeeping beat: a message sent between two beats moves the next look onto the beat, not a minute after the send")
    func outboxLooksOnTheHousekeepingBeat() throws {
        var box = try MachineBox(router: MeshRouterConfiguration(helloPeriod: .seconds(3_600)))
        var wakes: [Duration] = []
        var t = Duration.zero
        var sent = false
        while t < .seconds(300) {
            if !sent, t >= .seconds(10) {
                _ = try box.send("between two beats", at: .seconds(10))
                t = .seconds(10)
                sent = true
            }
            let next = box.timer(at: t)
            _ = MeshNodeCatchUpTests.drain(&box, at: t)
            wakes.append(next)
            t = min(max(next, t + .milliseconds(1)), sent ? .seconds(300) : .seconds(10))
        }
        #expect(try box.machine.memory.waitingOutgoingCount() == 0, "the broadcast went out")
        for beat in [60, 120, 180, 240] { #expect(wakes.contains(.seconds(beat)), "\(wakes)") }
        for offBeat in [70, 130, 190, 250] { #expect(!wakes.contains(.seconds(offBeat)), "\(wakes)") }
    }

    @Test("an outbox found empty is not looked at again until a message is sent; one waiting for its retry is looked at every 5 s")
    func emptyOutboxNotLookedAt() throws {
        let settings = MeshNodeMachine<CountingNodeMemory>.Settings(hopLimit: 3, messageLifetime: 3_600, modulation: .longFast,
                                                                    router: .standard, retrySpacing: .seconds(15))
        var machine = try MeshNodeMachine(keyPair: BoxKeyPair(), networkKey: MachineBox.networkKey, memory: CountingNodeMemory(),
                                          budget: AirtimeBudget(window: .seconds(3_600), limit: .seconds(360)), settings: settings, seed: 1)
        func run(from: Duration, until: Duration) {
            var t = from
            while t < until {
                var next = t + .seconds(1)
                for action in machine.handle(.timer, at: MachineBox.time(t)) { if case .wake(let at) = action { next = at } }
                while case .transmit? = machine.handle(.radioIdle, at: MachineBox.time(t)).first {}
                t = max(next, t + .milliseconds(1))
            }
        }
        run(from: .zero, until: .seconds(600))
        #expect(machine.memory.dueLooks == 1, "one look at the start: a message may be left from before")
        #expect(machine.memory.housekeepings >= 9, "housekeeping goes on: \(machine.memory.housekeepings)")
        _ = machine.handle(.send(MeshNodeMessage(payload: [1] + Array("a broadcast".utf8))), at: MachineBox.time(.seconds(600)))
        run(from: .seconds(600), until: .seconds(1_200))
        #expect(machine.memory.dueLooks == 2, "one look for the broadcast, none after it went")
        // A directed message to a box that never answers waits for its retries: a look every 5 s.
        _ = machine.handle(.send(MeshNodeMessage(payload: [1] + Array("to one".utf8), destination: BoxKeyPair().nodeID)),
                           at: MachineBox.time(.seconds(1_200)))
        run(from: .seconds(1_200), until: .seconds(1_260))
        #expect(machine.memory.dueLooks >= 2 + 12, "\(machine.memory.dueLooks)")
    }

    @Test("the box's own hellos and digests are not written to the seen-set; a copy of one heard back is still a duplicate")
    func ownControlFramesNotSeen() throws {
        var box = try MeshNodeRepairTests.repairing()
        let sent = MeshNodeRepairTests.run(&box, from: .zero, until: .seconds(120))
        let kinds = try sent.map { try MeshFrameCodec.parse($0.frame.bytes).header.kind }
        #expect(kinds.contains(.hello) && kinds.contains(.digest), "\(kinds)")
        #expect(box.machine.memory.seenCount == 0)
        let hello = try #require(sent.first { (try? MeshFrameCodec.parse($0.frame.bytes).header.kind) == .hello })
        let before = box.counters
        #expect(box.hear(hello.frame.bytes, at: .seconds(120)).isEmpty)
        #expect(box.counters.duplicates == before.duplicates + 1)
        #expect(box.counters.delivered == before.delivered && box.machine.memory.seenCount == 0)
        // A message of its own is still marked (it is stored with its frames).
        _ = try box.send("mine", at: .seconds(121))
        #expect(box.machine.memory.seenCount == 1)
    }

    @Test("a failed transmission is counted; a channel-busy report asks for nothing")
    func radioReports() throws {
        var box = try MachineBox()
        #expect(box.handle(.channelBusy(true), at: .zero).isEmpty)
        #expect(box.handle(.channelUtilisation(0.35), at: .zero).isEmpty)
        #expect(box.machine.channelUtilisation == 0.35 && box.machine.channelBusy)
        #expect(box.handle(.transmitFailed, at: .zero).isEmpty)
        #expect(box.counters.radioErrors == 1)
    }
}
