import DriftMesh
import Foundation
import Testing

/// Store-and-forward catch-up on one node machine, with explicit instants (no clock, no sleep):
/// the digest a box sends when it starts, answers after a random delay, and requests repeated
/// until answered (review finding 8).
@Suite("Mesh node machine: catch-up rules")
struct MeshNodeCatchUpTests {
    static let sealer = try! MeshSealer(networkKey: MachineBox.networkKey)
    /// The longest frame's airtime at LongFast (233 bytes, about 2 s).
    static let longestFrame = LoRaAirtime.duration(payloadBytes: MeshFrame.maxBytes, modulation: .longFast)
    /// The longest random answer delay at the defaults: eight longest frames (about 16 s).
    static let longestDelay = longestFrame * 8

    /// A one-hop control frame (digest, request) from `origin`.
    static func control(_ kind: FrameKind, _ payload: [UInt8], from origin: NodeID, packetID: UInt32 = 1,
                        lifetime: TimeInterval = 600) throws -> [UInt8] {
        let header = MeshHeader(kind: kind, origin: origin, packetID: packetID, hopStart: 0,
                                expiresAtMinute: MeshHeader.expiryMinute(now: MachineBox.epoch, lifetime: lifetime))
        return try sealer.seal(header: header, plaintext: payload)
    }

    /// Everything the radio would take at `t`, one frame after another (no time on air).
    static func drain(_ box: inout MachineBox, at t: Duration) -> [OutgoingFrame] {
        var sent: [OutgoingFrame] = []
        var now = t
        while true {
            let (frame, wake) = box.radioIdle(at: now)
            if let frame {
                sent.append(frame)
            } else if let wake, wake <= now + .seconds(5) {
                now = wake  // the previous frame's time on air
            } else {
                return sent
            }
        }
    }

    static func kinds(_ frames: [OutgoingFrame]) throws -> [FrameKind] {
        try frames.map { try MachineBox.kind($0) }
    }

    /// The keys of the request frames among `frames`.
    static func requested(_ frames: [OutgoingFrame]) throws -> [[PacketKey]] {
        try frames.compactMap { frame in
            let (header, plaintext) = try sealer.open(frame.bytes)
            return header.kind == .request ? try SyncRequest(decoding: plaintext).keys : nil
        }
    }

    /// A box that has run its first timer and sent its hello and digest.
    static func started(seed: UInt64 = 1) throws -> MachineBox {
        var box = try MachineBox(seed: seed)
        box.timer(at: .zero)
        _ = drain(&box, at: .zero)
        return box
    }

    @Test("a box that starts sends its digest right after its first hello, and only then")
    func digestAtStart() throws {
        var box = try MachineBox()
        let held = try MachineBox.frame("kept from before", packetID: 5, origin: BoxKeyPair())
        box.hear(held, at: .zero)
        box.timer(at: .zero)
        let first = Self.drain(&box, at: .zero)
        #expect(try Self.kinds(first) == [.hello, .digest])
        let (_, digest) = try Self.sealer.open(first[1].bytes)
        #expect(try SyncDigest(decoding: digest).contains(try MeshFrameCodec.parse(held).header.key))
        // The next hellos come alone.
        var later: [FrameKind] = []
        var t = Duration.seconds(1)
        while t < .seconds(700) {
            let next = box.timer(at: t)
            later += try Self.kinds(Self.drain(&box, at: t))
            t = max(next, t + .milliseconds(1))
        }
        #expect(later == [.hello, .hello], "\(later)")
        // A machine made again (the daemon restarting) announces itself again.
        var restarted = try MachineBox(keyPair: box.keyPair, memory: box.machine.memory)
        restarted.timer(at: .zero)
        #expect(try Self.kinds(Self.drain(&restarted, at: .zero)) == [.hello, .digest])
    }

    @Test("a neighbour's digest is answered after a random delay of at most eight longest frames, to the nanosecond; not its own packets")
    func digestAnswerWaits() throws {
        var box = try Self.started()
        let neighbour = BoxKeyPair()
        box.hear(try MachineBox.frame("from afar", packetID: 5, origin: BoxKeyPair()), at: .seconds(1))
        box.hear(try MachineBox.frame("its own", packetID: 6, origin: neighbour), at: .seconds(1))
        box.hear(try Self.control(.digest, SyncDigest(held: []).encoded(), from: neighbour.nodeID), at: .seconds(2))
        #expect(box.counters.framesResent == 0, "answered at once")
        let answerAt = box.timer(at: .seconds(2))
        #expect(answerAt <= .seconds(2) + Self.longestDelay)
        box.timer(at: answerAt - .nanoseconds(1))
        #expect(box.counters.framesResent == 0, "answered before its delay")
        box.timer(at: answerAt)
        #expect(box.counters.framesResent == 1, "the packet from afar, not the neighbour's own")
        let sent = Self.drain(&box, at: answerAt)
        #expect(try sent.map { try MeshFrameCodec.parse($0.bytes).header.packetID } == [5])
    }

    @Test("answer delays differ between boxes (seeds) and stay within eight longest frames")
    func delaysSpread() throws {
        var delays: Set<Duration> = []
        for seed in UInt64(1)...20 {
            var box = try Self.started(seed: seed)
            box.hear(try MachineBox.frame("x", packetID: 5, origin: BoxKeyPair()), at: .seconds(1))
            box.hear(try Self.control(.digest, SyncDigest(held: []).encoded(), from: BoxKeyPair().nodeID), at: .seconds(2))
            let wake = box.timer(at: .seconds(2))
            // A delay of zero slots: answered by this very timer.
            let delay = box.counters.framesResent == 1 ? .zero : wake - .seconds(2)
            box.timer(at: .seconds(2) + delay)
            #expect(box.counters.framesResent == 1)
            #expect(delay >= .zero && delay <= Self.longestDelay)
            delays.insert(delay)
        }
        #expect(delays.count >= 15, "\(delays.sorted())")
    }

    @Test("another box's copy heard during the delay takes our answer back")
    func answerSuppressedDuringTheDelay() throws {
        var box = try Self.started()
        let held = try MachineBox.frame("catch me up", packetID: 5, origin: BoxKeyPair(), hopStart: 3)
        box.hear(held, at: .seconds(1))
        box.hear(try Self.control(.digest, SyncDigest(held: []).encoded(), from: BoxKeyPair().nodeID), at: .seconds(2))
        box.hear(try MeshFrameCodec.relay(held, by: BoxKeyPair().nodeID), at: .seconds(2))
        #expect(box.counters.resendsSuppressed == 1)
        box.timer(at: .seconds(2) + Self.longestDelay)
        #expect(box.counters.framesResent == 0)
    }

    @Test("a request is answered with the held frames after a random delay")
    func requestAnswerWaits() throws {
        var box = try Self.started()
        let held = try MachineBox.frame("asked for", packetID: 5, origin: BoxKeyPair())
        box.hear(held, at: .seconds(1))
        let key = try MeshFrameCodec.parse(held).header.key
        box.hear(try Self.control(.request, SyncRequest(keys: [key]).encoded(), from: BoxKeyPair().nodeID), at: .seconds(2))
        #expect(box.counters.framesResent == 0)
        let answerAt = box.timer(at: .seconds(2))
        #expect(answerAt <= .seconds(2) + Self.longestDelay)
        box.timer(at: answerAt)
        #expect(box.counters.framesResent == 1)
    }

    @Test("a packet asked for again within two hello periods (a request, or a full digest that lacks it) is sent whatever copies are heard; the first answer, or one asked for long after, is taken back",
          arguments: [true, false], [FrameKind.request, .digest])
    func packetAskedForAgain(answersRepeatedRequests: Bool, asking: FrameKind) throws {
        var (box, held, key) = try MeshNodeRepairTests.holding("asked for twice") { $0.answersRepeatedRequests = answersRepeatedRequests }
        let requester = BoxKeyPair().nodeID
        // Another neighbour of the requester answers first, every time; the requester does not hear it.
        let otherCopy = try MeshFrameCodec.relay(held, by: BoxKeyPair().nodeID)
        /// Asks at `t`, another copy is heard at once; returns the copies of ours that went out.
        func ask(at t: Duration, packetID: UInt32, copyAfterQueued: Bool = false) throws -> Int {
            let payload = asking == .request ? SyncRequest(keys: [key]).encoded() : SyncDigest(held: []).encoded()
            box.hear(try Self.control(asking, payload, from: requester, packetID: packetID, lifetime: 3_600), at: t)
            box.hear(otherCopy, at: t)
            box.timer(at: t + Self.longestDelay)
            // A copy heard after ours was queued takes it back too, unless it was asked for again.
            if copyAfterQueued { box.hear(otherCopy, at: t + Self.longestDelay) }
            return try Self.drain(&box, at: t + Self.longestDelay).filter { try MeshFrameCodec.parse($0.bytes).header.key == key }.count
        }
        #expect(try ask(at: .seconds(2), packetID: 1) == 0, "the first answer went out despite the copy")
        #expect(box.counters.resendsSuppressed == 1)
        let again = try ask(at: .seconds(60), packetID: 2, copyAfterQueued: true)
        #expect(again == (answersRepeatedRequests ? 1 : 0))
        #expect(box.counters.resendsAskedAgain == (answersRepeatedRequests ? 1 : 0))
        // Two hello periods after its last request — and after the last copy heard
        // (``lackAfterCopyAsksAgain(rule:)``) — the same packet counts as asked for the first time.
        let later = Duration.seconds(60) + Self.longestDelay + MeshRouterConfiguration.standard.helloPeriod * 2
        box.timer(at: later)
        #expect(try ask(at: later, packetID: 3) == 0)
        #expect(box.counters.resendsAskedAgain == (answersRepeatedRequests ? 1 : 0))
    }

    @Test("a packet a neighbour's full digest lacks after another box's catch-up copy of it was heard while the neighbour was up counts as asked again; a flood's copy, a copy heard as the digest went out, one heard before the neighbour's start, or one two hello periods old does not",
          arguments: [true, false])
    func lackAfterCopyAsksAgain(rule: Bool) throws {
        var (box, held, key) = try MeshNodeRepairTests.holding("copied to another box") { $0.lacksAfterCopiesAskAgain = rule }
        // Another box's copy, which the asking neighbours never hear.
        let otherCopy = try MeshFrameCodec.relay(held, by: BoxKeyPair().nodeID)
        let period = MeshRouterConfiguration.standard.helloPeriod
        /// A hello of `neighbour` heard at `t`, listing this box or (a box that just started) nobody.
        func hello(_ neighbour: BoxKeyPair = BoxKeyPair(), at t: Duration, listing: Bool = true, packetID: UInt32 = 1) throws -> BoxKeyPair {
            box.hear(try MeshNodeHelloTests.hello(from: neighbour, keyed: true, listing: listing ? [box.me] : [], packetID: packetID, at: t), at: t)
            return neighbour
        }
        /// `neighbour` sends a full digest lacking the packet at `t`, the other box's copy follows
        /// at once; returns the copies of ours that went out.
        func asked(by neighbour: BoxKeyPair, at t: Duration) throws -> Int {
            box.hear(try Self.control(.digest, SyncDigest(held: []).encoded(), from: neighbour.nodeID, packetID: 2, lifetime: 3_600), at: t)
            box.hear(otherCopy, at: t)
            box.timer(at: t + Self.longestDelay)
            return try Self.drain(&box, at: t + Self.longestDelay).filter { try MeshFrameCodec.parse($0.bytes).header.key == key }.count
        }
        // A flood's copy (4 s after ours) is no catch-up copy: the first answer gives way.
        let first = try hello(at: .seconds(2)), restarting = try hello(at: .seconds(3))
        box.hear(otherCopy, at: .seconds(5))
        #expect(try asked(by: first, at: .seconds(20)) == 0)
        // A catch-up copy heard as the digest went out: the digest may have been sealed before it.
        let second = try hello(at: .seconds(90)), third = try hello(at: .seconds(95))
        box.hear(otherCopy, at: .seconds(100))
        #expect(try asked(by: second, at: .seconds(100) + Self.longestFrame) == 0)
        #expect(box.counters.resendsAskedAgain == 0)
        // A minute after that copy a neighbour heard before it still lacks the packet: the copy
        // did not reach it.
        #expect(try asked(by: third, at: .seconds(160) + Self.longestFrame) == (rule ? 1 : 0))
        #expect(box.counters.resendsAskedAgain == (rule ? 1 : 0))
        // A neighbour that just started (its hello lists nobody) was off when the copy went out.
        box.hear(otherCopy, at: .seconds(700))
        _ = try hello(restarting, at: .seconds(740), listing: false, packetID: 3)
        let fourth = try hello(at: .seconds(750))
        #expect(try asked(by: restarting, at: .seconds(760)) == 0)
        // One first heard after two hello periods of silence may have been up a hello period
        // already (its start hello lost here): a copy within that period counts, one before it not.
        let early = Duration.seconds(760) + period - .seconds(1)
        #expect(try asked(by: BoxKeyPair(), at: early) == (rule ? 1 : 0))
        #expect(try asked(by: BoxKeyPair(), at: early + period + .seconds(2)) == 0)
        #expect(box.counters.resendsAskedAgain == (rule ? 2 : 0))
        // Two hello periods after the copy it counts for nothing, though the neighbour was up then.
        _ = try hello(fourth, at: .seconds(1_100), packetID: 3)
        _ = try hello(fourth, at: .seconds(1_400), packetID: 4)
        _ = try hello(fourth, at: .seconds(1_700), packetID: 5)
        let later = early + period + .seconds(2) + period * 2
        box.timer(at: later)
        #expect(try asked(by: fourth, at: later) == 0)
        #expect(box.counters.resendsAskedAgain == (rule ? 2 : 0))
    }

    /// The time a request of `keys` packets waits before it is repeated, at the defaults.
    static func timeout(keys: Int) -> Duration {
        Self.longestDelay + Self.longestFrame * (keys + 2)
    }

    /// A started box that heard a digest listing a packet of `origin` it lacks and one of its
    /// own, and the instant its request went out.
    static func asking(origin: BoxKeyPair = BoxKeyPair()) throws -> (box: MachineBox, wanted: PacketKey, requestedAt: Duration) {
        var box = try Self.started()
        let wanted = PacketKey(origin: origin.nodeID, packetID: 40)
        let own = PacketKey(origin: box.me, packetID: 900)
        box.hear(try Self.control(.digest, SyncDigest(held: [wanted, own]).encoded(), from: BoxKeyPair().nodeID), at: .seconds(2))
        let requestedAt = box.timer(at: .seconds(2))
        #expect(requestedAt <= .seconds(2) + Self.longestDelay)
        box.timer(at: requestedAt)
        #expect(try Self.requested(Self.drain(&box, at: requestedAt)) == [[wanted]], "asked for its own packet, or not at all")
        return (box, wanted, requestedAt)
    }

    @Test("a request whose answer does not come is repeated after 1, 2 and 4 timeouts, to the nanosecond, then given up")
    func requestRepeatedWithBackOff() throws {
        var (box, wanted, t) = try Self.asking()
        let timeout = Self.timeout(keys: 1)
        for attempt in 1...3 {
            t += timeout * (1 << (attempt - 1))
            box.timer(at: t - .nanoseconds(1))
            #expect(box.counters.requestsRepeated == attempt - 1, "repeated early (attempt \(attempt))")
            box.timer(at: t)
            #expect(box.counters.requestsRepeated == attempt)
            #expect(try Self.requested(Self.drain(&box, at: t)) == [[wanted]])
        }
        box.timer(at: t + timeout * 8)
        box.timer(at: t + .seconds(3_600))
        #expect(box.counters.requestsRepeated == 3, "four requests in all")
    }

    @Test("a request is not asked again by the next digest while it waits, and not repeated once the packet came")
    func requestEndsWhenAnswered() throws {
        let origin = BoxKeyPair()
        var (box, wanted, t) = try Self.asking(origin: origin)
        // A second neighbour's digest lists it too, while the request waits for its answer.
        box.hear(try Self.control(.digest, SyncDigest(held: [wanted]).encoded(), from: BoxKeyPair().nodeID, packetID: 2), at: t + .seconds(1))
        box.timer(at: t + .seconds(1) + Self.longestDelay)
        #expect(try Self.requested(Self.drain(&box, at: t + .seconds(1) + Self.longestDelay)).isEmpty)
        // The answer: the packet, as a neighbour resends it.
        let answer = try MachineBox.frame("here it is", packetID: wanted.packetID, origin: origin, hopStart: 3)
        #expect(box.hear(try MeshFrameCodec.relay(answer, by: BoxKeyPair().nodeID), at: t + .seconds(2)).texts == ["here it is"])
        box.timer(at: t + Self.timeout(keys: 1) * 16)
        #expect(box.counters.requestsRepeated == 0)
    }

    /// Requests and digests wait for the radio at background priority, under load while the
    /// channel is busy. A request whose packets came meanwhile is taken off the queue; one
    /// whose packets partly came asks for the rest only. Before, it asked for them anyway and
    /// neighbours sent copies nobody lacked (docs/mesh-simulation.md, "Digests and requests go
    /// out fresh").
    @Test("a request waiting for the radio asks only for what has not come meanwhile; one whose packets all came is taken off the queue")
    func queuedRequestsStayFresh() throws {
        let origin = BoxKeyPair()
        let keys = [PacketKey(origin: origin.nodeID, packetID: 40), PacketKey(origin: origin.nodeID, packetID: 41)]
        for allCome in [false, true] {
            var box = try Self.started()
            box.hear(try Self.control(.digest, SyncDigest(held: keys).encoded(), from: BoxKeyPair().nodeID), at: .seconds(2))
            let requestAt = box.timer(at: .seconds(2))
            box.timer(at: requestAt)  // the request is queued; the radio is not asked yet
            for key in allCome ? keys : [keys[0]] {
                let frame = try MachineBox.frame("came", packetID: key.packetID, origin: origin, hopStart: 3)
                box.hear(try MeshFrameCodec.relay(frame, by: BoxKeyPair().nodeID), at: requestAt + .milliseconds(1))
            }
            let sent = try Self.requested(Self.drain(&box, at: requestAt + .milliseconds(2)))
            if allCome {
                #expect(sent.isEmpty, "\(sent)")
                #expect(box.counters.requestsWithdrawn == 1)
            } else {
                #expect(sent == [[keys[1]]], "\(sent)")
                #expect(box.counters.syncRefreshed == 1)
            }
            // And nothing is asked again later for what came.
            let later = requestAt + Self.timeout(keys: 2) * 16
            box.timer(at: later)
            #expect(try Self.requested(Self.drain(&box, at: later)).allSatisfy { !$0.contains(keys[0]) })
        }
    }

    /// Runs `box`'s timers and radio from `from`, wake by wake, until `done` holds (given the
    /// box and the instants of the digests it sent so far); the instant it first did (`nil` if
    /// not by `until`). The digests drained on the way are added to `digests`.
    static func firstInstant(_ box: inout MachineBox, from: Duration, until: Duration, digests: inout [Duration],
                             _ done: (MachineBox, [Duration]) -> Bool) throws -> Duration? {
        var t = from
        while t <= until {
            let next = box.timer(at: t)
            digests += try Self.kinds(Self.drain(&box, at: t)).filter { $0 == .digest }.map { _ in t }
            if done(box, digests) { return t }
            t = max(next, t + .milliseconds(1))
        }
        return nil
    }

    @Test("the start digest, when its answers brought a new packet, goes out again when they had time to come and a random answer delay, at most twice in a row; not when they brought nothing, nor for other digests")
    func digestFollowUps() throws {
        var box = try Self.started()  // its start digest went out at 0
        let watch = Self.timeout(keys: 2)
        // An answer: a packet new to the box.
        box.hear(try MachineBox.frame("missed while away", packetID: 5, origin: BoxKeyPair()), at: .seconds(3))
        box.timer(at: watch - .nanoseconds(1))
        #expect(box.counters.digestFollowUps == 0)
        var digests: [Duration] = []
        let first = try #require(try Self.firstInstant(&box, from: watch - .nanoseconds(1), until: watch + Self.longestDelay, digests: &digests) {
            !$1.isEmpty
        })
        #expect(box.counters.digestFollowUps == 1)
        #expect(first >= watch && first <= watch + Self.longestDelay, "\(first)")
        #expect(digests == [first])
        // The follow-up brings another; the second follow-up is the last in a row.
        box.hear(try MachineBox.frame("also missed", packetID: 6, origin: BoxKeyPair()), at: first + .seconds(3))
        let second = try #require(try Self.firstInstant(&box, from: first + .seconds(3), until: first + watch + Self.longestDelay, digests: &digests) {
            $1.count == 2
        })
        #expect(box.counters.digestFollowUps == 2)
        #expect(second >= first + watch && second <= first + watch + Self.longestDelay, "\(second - first)")
        box.hear(try MachineBox.frame("and this", packetID: 7, origin: BoxKeyPair()), at: second + .seconds(3))
        box.timer(at: second + watch * 2)
        box.timer(at: second + watch * 4)
        #expect(box.counters.digestFollowUps == 2)
        // Boxes that started together follow up at different instants.
        var instants: Set<Duration> = []
        for seed in UInt64(1)...10 {
            var other = try Self.started(seed: seed)
            other.hear(try MachineBox.frame("missed while away", packetID: 5, origin: BoxKeyPair()), at: .seconds(3))
            var sent: [Duration] = []
            if let at = try Self.firstInstant(&other, from: .seconds(3), until: watch + Self.longestDelay, digests: &sent, { !$1.isEmpty }) {
                instants.insert(at)
            }
        }
        #expect(instants.count >= 8, "\(instants.sorted())")
        // A box whose digest brought nothing sends none.
        var quiet = try Self.started()
        quiet.timer(at: watch)
        quiet.timer(at: watch * 3)
        #expect(quiet.counters.digestFollowUps == 0)
        // Nor does the digest for a new neighbour two hello periods after the start, whatever
        // comes after it (one sooner: ``digestsAfterStartFollowedUp(_:)``).
        let late = MeshRouterConfiguration.standard.helloPeriod * 2
        quiet.timer(at: late - .seconds(1))
        _ = Self.drain(&quiet, at: late - .seconds(1))
        let neighbour = BoxKeyPair()
        let hello = HelloPayload(publicKey: neighbour.publicKeyBytes, neighbours: []).encoded()
        quiet.hear(try Self.control(.hello, hello, from: neighbour.nodeID), at: late)
        var sent: [Duration] = []
        let digestAt = try #require(try Self.firstInstant(&quiet, from: late, until: late + Self.longestDelay, digests: &sent) { !$1.isEmpty })
        quiet.hear(try MachineBox.frame("the ordinary flood", packetID: 8, origin: BoxKeyPair()), at: digestAt + .seconds(1))
        _ = try Self.firstInstant(&quiet, from: digestAt + .seconds(1), until: digestAt + watch * 3, digests: &sent) { _, _ in false }
        #expect(quiet.counters.digestFollowUps == 0)
        #expect(sent == [digestAt])
    }

    @Test("a full digest a box sends within two hello periods of its start, for a new neighbour's hello, is followed up as the start digest when its answers bring a new packet; with the rule off it is not",
          arguments: [true, false])
    func digestsAfterStartFollowedUp(_ rule: Bool) throws {
        #expect(MeshNodeMachine<InMemoryNodeMemory>.Settings(hopLimit: 3, messageLifetime: 3_600, modulation: .longFast, router: .standard).digestsAfterStartFollowedUp)
        var box = try MachineBox { $0.digestsAfterStartFollowedUp = rule }
        box.timer(at: .zero)
        _ = Self.drain(&box, at: .zero)
        // The start digest brings nothing (lost on the air, say).
        let watch = Self.timeout(keys: 2)
        box.timer(at: watch * 3)
        #expect(box.counters.digestFollowUps == 0)
        // A neighbour's hello: our digest for it, whose answer brings a packet missed while away.
        let neighbour = BoxKeyPair()
        let hello = HelloPayload(publicKey: neighbour.publicKeyBytes, neighbours: []).encoded()
        box.hear(try Self.control(.hello, hello, from: neighbour.nodeID), at: .seconds(100))
        var sent: [Duration] = []
        let digestAt = try #require(try Self.firstInstant(&box, from: .seconds(100), until: .seconds(100) + Self.longestDelay, digests: &sent) { !$1.isEmpty })
        box.hear(try MachineBox.frame("missed while away", packetID: 5, origin: BoxKeyPair()), at: digestAt + .seconds(3))
        let followUp = try Self.firstInstant(&box, from: digestAt + .seconds(3), until: digestAt + watch + Self.longestDelay, digests: &sent) { $1.count == 2 }
        #expect(box.counters.digestFollowUps == (rule ? 1 : 0))
        if rule {
            let at = try #require(followUp)
            #expect(at >= digestAt + watch && at <= digestAt + watch + Self.longestDelay, "\(at - digestAt)")
        } else {
            #expect(followUp == nil, "\(sent)")
        }
    }

    /// The instants a box (answer delays drawn by `seed`) sent full digests after it heard a new
    /// neighbour's hello at 200 s, to 200 s + three hello periods + the longest answer delay.
    static func digestsForNewNeighbour(seed: UInt64, delayed: Bool) throws -> [Duration] {
        var box = try MachineBox(seed: seed) { $0.digestRepeatsDelayed = delayed }
        box.timer(at: .zero)
        _ = Self.drain(&box, at: .zero)
        box.timer(at: .seconds(100))  // past its start digest's watch
        _ = Self.drain(&box, at: .seconds(100))
        let neighbour = BoxKeyPair()
        let hello = HelloPayload(publicKey: neighbour.publicKeyBytes, neighbours: []).encoded()
        box.hear(try Self.control(.hello, hello, from: neighbour.nodeID), at: .seconds(200))
        var digests: [Duration] = []
        let end = Duration.seconds(200) + MeshRouterConfiguration.standard.helloPeriod * 3 + Self.longestDelay
        _ = try Self.firstInstant(&box, from: .seconds(200), until: end, digests: &digests) { _, _ in false }
        return digests
    }

    @Test("the digest repeated three hello periods after a new neighbour's hello waits a random answer delay: boxes that heard the same hello repeat it at different instants; without the rule all at once")
    func digestRepeatSpread() throws {
        let repeatDue = Duration.seconds(200) + MeshRouterConfiguration.standard.helloPeriod * 3
        var repeats: Set<Duration> = []
        for seed in UInt64(1)...10 {
            let sent = try Self.digestsForNewNeighbour(seed: seed, delayed: true)
            try #require(sent.count == 2, "seed \(seed): \(sent)")
            #expect(sent[0] >= .seconds(200) && sent[0] <= .seconds(200) + Self.longestDelay)
            #expect(sent[1] >= repeatDue && sent[1] <= repeatDue + Self.longestDelay, "seed \(seed): \(sent[1] - repeatDue)")
            repeats.insert(sent[1])
        }
        #expect(repeats.count >= 8, "\(repeats.sorted())")
        // The rule before: every box that heard the hello repeats at the same instant.
        for seed in UInt64(1)...3 {
            let sent = try Self.digestsForNewNeighbour(seed: seed, delayed: false)
            #expect(sent.count == 2 && sent.last == repeatDue, "seed \(seed): \(sent)")
        }
    }

    /// The full digests among `sent`.
    static func fullDigests(_ sent: [(at: Duration, frame: OutgoingFrame)]) throws -> [Duration] {
        try sent.compactMap { item in
            let (header, plaintext) = try Self.sealer.open(item.frame.bytes)
            return header.kind == .digest && (try? CompactDigest(decoding: plaintext)) == nil ? item.at : nil
        }
    }

    @Test("a neighbour new to the box shares a full digest already on its way, or one sent after the hello of ours its own hello lists; with the rule off each gets its own",
          arguments: [true, false])
    func newNeighbourDigestsShared(shared: Bool) throws {
        var box = try MachineBox(seed: 1) { $0.newNeighbourDigestsShared = shared }
        #expect(try Self.fullDigests(MeshNodeRepairTests.run(&box, from: .zero, until: .seconds(100))) == [.zero], "the start digest, after the first hello")
        func meet(_ listsUs: Bool, at t: Duration, packetID: UInt32) throws {
            box.hear(try MeshNodeHelloTests.hello(from: BoxKeyPair(), keyed: true, listing: listsUs ? [box.me] : [], packetID: packetID, at: t), at: t)
        }
        // Two neighbours met within a second: one digest while the first still waits its delay.
        try meet(false, at: .seconds(100), packetID: 1)
        try meet(false, at: .seconds(100) + .milliseconds(500), packetID: 2)
        let first = try Self.fullDigests(MeshNodeRepairTests.run(&box, from: .seconds(100), until: .seconds(150)))
        #expect(first.count == (shared ? 1 : 2), "\(first)")
        try #require(!first.isEmpty)
        // Our last hello went at 0 s and that digest after it: a neighbour whose hello lists us
        // heard a hello of ours since it started, so it was listening when the digest went.
        try meet(true, at: .seconds(151), packetID: 3)
        #expect(try Self.fullDigests(MeshNodeRepairTests.run(&box, from: .seconds(151), until: .seconds(160))).count == (shared ? 0 : 1))
        // One whose hello lists nobody may not have been: it gets its digest.
        try meet(false, at: .seconds(161), packetID: 4)
        #expect(try Self.fullDigests(MeshNodeRepairTests.run(&box, from: .seconds(161), until: .seconds(200))).count == 1)
        // After our next hello (300 s ± 30 s) a hello listing us may be from that one: a digest.
        _ = MeshNodeRepairTests.run(&box, from: .seconds(200), until: .seconds(400))
        try meet(true, at: .seconds(400), packetID: 5)
        #expect(try Self.fullDigests(MeshNodeRepairTests.run(&box, from: .seconds(400), until: .seconds(410))).count == 1)
        #expect(box.counters.digestsShared == (shared ? 2 : 0))
    }

    @Test("a box whose first hello waits (the router's firstHelloSpread) sends no digest for a neighbour it hears meanwhile: its start digest follows its hello; with the rule off one more",
          arguments: [true, false])
    func startDigestSharedWhileTheFirstHelloWaits(shared: Bool) throws {
        var router = MeshRouterConfiguration.standard
        router.firstHelloSpread = .seconds(30)
        // A fixed key: the router's draws depend on the box's id.
        let keyPair = try BoxKeyPair(rawPrivateKey: Array(repeating: 7, count: 32))
        var box = try MachineBox(keyPair: keyPair, router: router, seed: 1) { $0.newNeighbourDigestsShared = shared }
        let wake = box.timer(at: .zero)
        try #require(wake > .seconds(2), "this key's first hello waits \(wake)")
        #expect(MeshNodeCatchUpTests.drain(&box, at: .zero).isEmpty, "nothing before the first hello")
        box.hear(try MeshNodeHelloTests.hello(from: BoxKeyPair(), keyed: true, listing: [], packetID: 1, at: .seconds(1)), at: .seconds(1))
        let sent = MeshNodeRepairTests.run(&box, from: .seconds(1), until: .seconds(100))
        let hello = try sent.first { try MachineBox.kind($0.frame) == .hello }?.at
        #expect(hello == wake)
        let digests = try Self.fullDigests(sent)
        #expect(digests.count == (shared ? 1 : 2), "\(digests)")
        if shared { #expect(digests == [wake], "the start digest, right after the first hello") }
    }

    @Test("a box holding packets of more origins than a full digest describes offers each origin in time (a random first origin per digest); with the rule off, always the lowest 18 ids")
    func fullDigestOriginsRotate() throws {
        func origins(rotate: Bool) throws -> Set<NodeID> {
            var box = try MachineBox { $0.digestOriginsRotate = rotate }
            for i in 0..<24 {
                box.hear(try MachineBox.frame("from \(i)", packetID: 5, origin: BoxKeyPair()), at: .seconds(1))
            }
            box.timer(at: .seconds(2))
            _ = Self.drain(&box, at: .seconds(2))  // its start digest
            var described: Set<NodeID> = []
            var digests = 0
            for i in 0..<12 {
                let at = Duration.seconds(10 + 60 * i)
                // A neighbour heard for the first time gets our digest.
                let neighbour = BoxKeyPair()
                let hello = HelloPayload(publicKey: neighbour.publicKeyBytes, neighbours: []).encoded()
                box.hear(try Self.control(.hello, hello, from: neighbour.nodeID, lifetime: 3_600), at: at)
                let sent = MeshNodeRepairTests.run(&box, from: at, until: at + Self.longestDelay + .seconds(1))
                for (_, frame) in sent where try MachineBox.kind(frame) == .digest {
                    let (_, plaintext) = try Self.sealer.open(frame.bytes)
                    let digest = try SyncDigest(decoding: plaintext)
                    #expect(!digest.complete && digest.runs.count == SyncDigest.maxRanges)
                    described.formUnion(digest.runs.map(\.origin))
                    digests += 1
                }
            }
            #expect(digests == 12)
            return described
        }
        #expect(try origins(rotate: true).count == 24)
        #expect(try origins(rotate: false).count == SyncDigest.maxRanges)
    }

    /// A box holding a backlog of 80 broadcasts of one origin (held before it started: no
    /// relays of them queued).
    static func holdingBacklog(seed: UInt64, spread: Bool, origin: BoxKeyPair = BoxKeyPair()) throws -> (box: MachineBox, keys: [PacketKey]) {
        var memory = InMemoryNodeMemory()
        var keys: [PacketKey] = []
        for id in UInt32(1)...80 {
            let frame = try MachineBox.frame("backlog \(id)", packetID: id, origin: origin)
            let key = try MeshFrameCodec.parse(frame).header.key
            try memory.holdHeard(key, kind: .broadcast, destination: nil, frame: frame, receivedAt: MachineBox.epoch,
                                 expiresAt: MachineBox.epoch.addingTimeInterval(3_600))
            keys.append(key)
        }
        var box = try MachineBox(memory: memory, seed: seed) { $0.answersSpread = spread }
        box.timer(at: .zero)
        _ = drain(&box, at: .zero)  // its hello and start digest
        return (box, keys)
    }

    /// The packets of the catch-up copies among `frames`.
    static func copied(_ frames: [OutgoingFrame]) throws -> [PacketKey] {
        try frames.compactMap { frame in
            let header = try MeshFrameCodec.parse(frame.bytes).header
            return header.kind == .broadcast ? header.key : nil
        }
    }

    @Test("an answer to a neighbour lacking more than 32 packets sends 32, from a random one on: two boxes answering the same digest send different ones; with the rule off, both the first 32 in key order",
          arguments: [true, false])
    func largeAnswersSpread(spread: Bool) throws {
        let lacking = try Self.control(.digest, SyncDigest(held: []).encoded(), from: BoxKeyPair().nodeID)
        var answers: [[PacketKey]] = []
        let origin = BoxKeyPair()
        for seed in UInt64(1)...2 {
            var (box, keys) = try Self.holdingBacklog(seed: seed, spread: spread, origin: origin)
            box.hear(lacking, at: .seconds(10))
            box.timer(at: .seconds(10) + Self.longestDelay)
            let sent = try Self.copied(Self.drain(&box, at: .seconds(10) + Self.longestDelay))
            #expect(sent.count == 32 && Set(sent).isSubset(of: keys))
            if !spread { #expect(sent.sorted() == Array(keys.sorted().prefix(32))) }
            answers.append(sent)
        }
        #expect((Set(answers[0]) == Set(answers[1])) == !spread)
    }

    @Test("a neighbour's digest repeated while our answer to it is still queued brings the next 32 packets, and those whose copies a full queue dropped come again; with the rule off, the same 32 each time",
          arguments: [true, false])
    func repeatedDigestBringsTheNext(spread: Bool) throws {
        var (box, keys) = try Self.holdingBacklog(seed: 1, spread: spread)
        let neighbour = BoxKeyPair().nodeID
        // Nothing goes on air in between (the radio is not offered): each digest lacks them all.
        for (number, at) in [(UInt32(1), Duration.seconds(10)), (2, .seconds(40)), (3, .seconds(70))] {
            box.hear(try Self.control(.digest, SyncDigest(held: []).encoded(), from: neighbour, packetID: number), at: at)
            box.timer(at: at + Self.longestDelay)
        }
        // The background class holds 32 frames: the second answer pushed the first out, and
        // the third found those packets no longer queued.
        #expect(box.counters.framesResent == (spread ? 96 : 32))
        #expect(box.counters.queueDropped == (spread ? 64 : 0))
        let sent = try Self.copied(Self.drain(&box, at: .seconds(70) + Self.longestDelay))
        #expect(sent.count == 32 && Set(sent).count == 32 && Set(sent).isSubset(of: keys))
    }

    /// When box's answer to a request goes on air after it heard 25 frames of about a second
    /// in the 25 s before: copies of a packet it got 34 s before them (`catchUp`), or first
    /// copies of new packets (the flood) on their last hop, which the box does not relay: its
    /// own relays go before any answer, and 20 of them (their random delays) outlasted the 20 s
    /// once in ten draws of the keys. `nil`: not within the 20 s after the request.
    static func answerAfterTraffic(catchUp: Bool, yields: Bool, threshold: Double = 0.25) throws -> Duration? {
        var box = try MachineBox {
            $0.backgroundYieldsToBackground = yields
            $0.backgroundBusyThreshold = threshold
        }
        box.timer(at: .zero)
        _ = drain(&box, at: .zero)
        let text = String(repeating: "x", count: 60)
        let old = try MachineBox.frame(text, packetID: 1, origin: BoxKeyPair(), hopStart: 3)
        let asked = try MachineBox.frame(text, packetID: 2, origin: BoxKeyPair(), hopStart: 3)
        box.hear(old, at: .seconds(1))
        box.hear(asked, at: .seconds(1))
        _ = MeshNodeRepairTests.run(&box, from: .seconds(1), until: .seconds(30))  // its relays
        for i in 0..<25 {
            let frame = catchUp ? try MeshFrameCodec.relay(old, by: BoxKeyPair().nodeID)
                                : try MachineBox.frame(text, packetID: 1, origin: BoxKeyPair(), hopStart: 0)
            box.hear(frame, at: .seconds(35 + i))
        }
        let key = try MeshFrameCodec.parse(asked).header.key
        box.hear(try control(.request, SyncRequest(keys: [key]).encoded(), from: BoxKeyPair().nodeID), at: .seconds(61))
        let sent = MeshNodeRepairTests.run(&box, from: .seconds(61), until: .seconds(81))
        return try sent.first { try MeshFrameCodec.parse($0.frame.bytes).header.key == key }?.at
    }

    @Test("an answer waits while the flood keeps the channel busy, not while catch-up does (copies of a packet first heard over 30 s before); with backgroundYieldsToBackground it waits for both; with the busy threshold at 1, for neither")
    func answersIgnoreCatchUpTraffic() throws {
        let answered = try Self.answerAfterTraffic(catchUp: true, yields: false)
        #expect(answered.map { $0 <= .seconds(61) + Self.longestDelay + .seconds(1) } == true)
        #expect(try Self.answerAfterTraffic(catchUp: false, yields: false) == nil)
        #expect(try Self.answerAfterTraffic(catchUp: true, yields: true) == nil)
        #expect(try Self.answerAfterTraffic(catchUp: false, yields: true) == nil)
        #expect(try Self.answerAfterTraffic(catchUp: false, yields: true, threshold: 1) != nil)
    }
}
