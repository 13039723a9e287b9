import DriftMesh
import Foundation
import Testing

/// A directed message in pieces crossing a relay: the relay passes the pieces on back to back
/// (`MeshRouterConfiguration.relayPiecesTogether`), and the origin, hearing some passed on and
/// not the others, sends the others again at once (`MeshNodeMachine.Settings.missingPiecesResent`).
/// On three real daemons at LongFast with 10 % of frames lost, a bottle's second piece lost
/// between the origin and the relay left the relay with half a bottle that it never passed on
/// whole, and the bottle waited for the outbox's 30 s. Explicit instants, no clock, no sleep.
@Suite("Mesh node machine: a message's pieces passed on together, and the missing ones sent again by the origin")
struct MeshNodeMissingPiecesTests {
    static let margin = MeshNodeQuickRetryTests.margin
    static let turnaround = Duration.milliseconds(500)

    /// A key pair of its own for each `seed` and `role`: the relay order and every random
    /// draw of a box follow from its id, so the runs below are the same every time.
    static func keyPair(_ seed: UInt64, _ role: UInt8) throws -> BoxKeyPair {
        var raw = [UInt8](repeating: role, count: 32)
        withUnsafeBytes(of: seed.littleEndian) { raw.replaceSubrange(1..<9, with: $0) }  // byte 0 is clamped
        return try BoxKeyPair(rawPrivateKey: raw)
    }

    static func airtime(_ frame: [UInt8]) -> Duration {
        LoRaAirtime.duration(payloadBytes: frame.count, modulation: .longFast)
    }

    /// A 400-byte text: a message of two pieces or more.
    static let long = String(repeating: "drift ", count: 67)

    /// The origin under test, started and drained, that has heard relay `b`'s hello (at 1 s)
    /// and sends `long` to `destination` (not a neighbour) at 10 s; returns its pieces as they
    /// went on the air.
    static func origin(hearing b: BoxKeyPair, sendingTo destination: NodeID,
                       configure: (inout MeshNodeMachine<InMemoryNodeMemory>.Settings) -> Void = { _ in }) throws
        -> (box: MachineBox, pieces: [OutgoingFrame], sentAt: Duration) {
        var box = try MachineBox(configure: configure)
        box.timer(at: .zero)
        while box.radioIdle(at: .zero).frame != nil {}
        box.hear(try MeshNodeHelloTests.hello(from: b, keyed: true, listing: [], packetID: 1), at: .seconds(1))
        let t = Duration.seconds(10)
        _ = try box.send(long, to: destination, at: t)
        box.timer(at: t)
        let out = try MeshNodeLastHopRetryTests.out(&box, from: t)
        #expect(out.count > 1)
        let last = try #require(out.last)
        return (box, out.map(\.frame), last.at + last.frame.airtime)
    }

    /// The directed frames `box` puts on the air from `t` until `end`, running its timers too.
    static func drain(_ box: inout MachineBox, from t: Duration, until end: Duration) throws -> [(at: Duration, frame: OutgoingFrame)] {
        var out: [(Duration, OutgoingFrame)] = []
        var now = t
        while now <= end {
            let timer = box.timer(at: now)
            let (frame, wake) = box.radioIdle(at: now)
            if let frame {
                if try MachineBox.kind(frame) == .directed { out.append((now, frame)) }
                now += frame.airtime
            } else {
                now = min(timer, wake ?? timer)
            }
        }
        return out
    }

    /// The pieces `box` sends from `t` on (its other frames may go between them).
    static func piecesOut(_ box: inout MachineBox, from t: Duration) throws -> [[UInt8]] {
        try MeshNodeLastHopRetryTests.out(&box, from: t).map(\.frame.bytes)
    }

    @Test("the relay passed the first piece on and not the second: the origin sends the second again when it should have followed plus the margin, to the nanosecond, once")
    func secondPieceResent() throws {
        let b = BoxKeyPair(), c = BoxKeyPair()
        var (box, pieces, sentAt) = try Self.origin(hearing: b, sendingTo: c.nodeID)
        let heardAt = sentAt + .seconds(2)
        box.hear(try MeshFrameCodec.relay(pieces[0].bytes, by: b.nodeID), at: heardAt)
        let following = Self.airtime(pieces[1].bytes) + Self.turnaround  // the next piece
        let due = heardAt + following + Self.margin
        box.timer(at: due - .nanoseconds(1))
        #expect(box.counters.piecesResent == 0)
        #expect(try Self.piecesOut(&box, from: due - .nanoseconds(1)).isEmpty)
        box.timer(at: due)
        #expect(box.counters.piecesResent == pieces.count - 1)
        #expect(try Self.piecesOut(&box, from: due) == pieces.dropFirst().map(\.bytes), "the pieces not heard, as they went")
        // With one round (the rule before): once only, the relay passing nothing more on changes nothing.
        var once = try Self.origin(hearing: b, sendingTo: c.nodeID) { $0.missingPiecesRounds = 1 }
        once.box.hear(try MeshFrameCodec.relay(once.pieces[0].bytes, by: b.nodeID), at: heardAt)
        once.box.timer(at: due)
        #expect(try Self.piecesOut(&once.box, from: due) == once.pieces.dropFirst().map(\.bytes))
        once.box.hear(try MeshFrameCodec.relay(once.pieces[0].bytes, by: b.nodeID), at: due + .seconds(1))
        #expect(try Self.drain(&once.box, from: due + .seconds(1), until: .seconds(39)).isEmpty, "nothing before the outbox's 30 s")
        #expect(once.box.counters.piecesResent == pieces.count - 1)
    }

    @Test("pieces sent again and not heard passed on go once more when the relay's copy of the last, the turnaround and the margin are over, to the nanosecond; three rounds, then the outbox")
    func resentPieceLostAgain() throws {
        let b = BoxKeyPair(), c = BoxKeyPair()
        var (box, pieces, sentAt) = try Self.origin(hearing: b, sendingTo: c.nodeID)
        let missing = pieces.dropFirst().map(\.bytes)
        let heardAt = sentAt + .seconds(2)
        box.hear(try MeshFrameCodec.relay(pieces[0].bytes, by: b.nodeID), at: heardAt)
        var due = heardAt + Self.airtime(pieces[1].bytes) + Self.turnaround + Self.margin
        for round in 1...3 {
            box.timer(at: due - .nanoseconds(1))
            #expect(box.counters.piecesResent == (round - 1) * missing.count, "round \(round)")
            #expect(try Self.piecesOut(&box, from: due - .nanoseconds(1)).isEmpty, "round \(round)")
            box.timer(at: due)
            #expect(box.counters.piecesResent == round * missing.count, "round \(round)")
            let out = try MeshNodeLastHopRetryTests.out(&box, from: due)
            #expect(out.map(\.frame.bytes) == missing, "round \(round): the missing pieces, in order")
            let last = try #require(out.last)
            due = last.at + last.frame.airtime * 2 + Self.turnaround + Self.margin
        }
        #expect(try Self.drain(&box, from: due - .seconds(1), until: .seconds(39)).isEmpty, "three rounds, then the outbox's 30 s")
        #expect(box.counters.piecesResent == 3 * missing.count)
        #expect(box.counters.quickRetries == 0)
    }

    @Test("pieces sent again and heard passed on, or the message acknowledged meanwhile: no further round; one heard, the other alone goes again")
    func resentPieceHeardPassedOn() throws {
        let b = BoxKeyPair(), c = BoxKeyPair()
        for outcome in ["passed on", "acknowledged", "one passed on"] {
            var (box, pieces, sentAt) = try Self.origin(hearing: b, sendingTo: c.nodeID)
            #expect(pieces.count == 3)
            let heardAt = sentAt + .seconds(2)
            box.hear(try MeshFrameCodec.relay(pieces[0].bytes, by: b.nodeID), at: heardAt)
            let due = heardAt + Self.airtime(pieces[1].bytes) + Self.turnaround + Self.margin
            box.timer(at: due)
            let out = try MeshNodeLastHopRetryTests.out(&box, from: due)
            let last = try #require(out.last)
            let end = last.at + last.frame.airtime
            switch outcome {
            case "acknowledged":
                let header = try MeshFrameCodec.parse(pieces[0].bytes).header
                let ack = try MeshNodeLastHopRetryTests.ack(of: header.messageKey.packetID, from: c.nodeID, to: box.me)
                #expect(box.hear(ack, at: end + .milliseconds(300)).confirmations.count == 1)
            case "passed on":
                box.hear(try MeshFrameCodec.relay(pieces[1].bytes, by: b.nodeID), at: end - last.frame.airtime)
                box.hear(try MeshFrameCodec.relay(pieces[2].bytes, by: b.nodeID), at: end + last.frame.airtime)
            default:
                box.hear(try MeshFrameCodec.relay(pieces[2].bytes, by: b.nodeID), at: end + last.frame.airtime)
                let again = end + last.frame.airtime + Self.margin
                box.timer(at: again)
                #expect(try Self.piecesOut(&box, from: again) == [pieces[1].bytes], "the piece still not heard passed on")
                #expect(box.counters.piecesResent == 3)
                continue
            }
            #expect(try Self.drain(&box, from: end + .seconds(1), until: .seconds(39)).isEmpty, "\(outcome)")
            #expect(box.counters.piecesResent == 2, "\(outcome)")
        }
    }

    @Test("a later piece passed on and an earlier one not: the earlier goes again after the margin alone")
    func earlierPieceResent() throws {
        let b = BoxKeyPair(), c = BoxKeyPair()
        var (box, pieces, sentAt) = try Self.origin(hearing: b, sendingTo: c.nodeID)
        let heardAt = sentAt + .seconds(2)
        let last = try #require(pieces.last)
        box.hear(try MeshFrameCodec.relay(last.bytes, by: b.nodeID), at: heardAt)
        box.timer(at: heardAt + Self.margin)
        #expect(try Self.piecesOut(&box, from: heardAt + Self.margin) == pieces.dropLast().map(\.bytes))
    }

    @Test("the first and the last piece passed on, one between them not: it goes again the margin after the last, sooner than the first alone would have it")
    func gapResent() throws {
        let b = BoxKeyPair(), c = BoxKeyPair()
        var (box, pieces, sentAt) = try Self.origin(hearing: b, sendingTo: c.nodeID)
        #expect(pieces.count == 3)
        let first = sentAt + .seconds(2)
        box.hear(try MeshFrameCodec.relay(pieces[0].bytes, by: b.nodeID), at: first)
        let last = first + Self.airtime(pieces[0].bytes)
        box.hear(try MeshFrameCodec.relay(pieces[2].bytes, by: b.nodeID), at: last)
        #expect(last + Self.margin < first + Self.airtime(pieces[1].bytes) + Self.turnaround + Self.margin)
        box.timer(at: last + Self.margin - .nanoseconds(1))
        #expect(box.counters.piecesResent == 0)
        box.timer(at: last + Self.margin)
        #expect(try Self.piecesOut(&box, from: last + Self.margin) == [pieces[1].bytes])
    }

    @Test("every piece passed on, the acknowledgement heard, nothing passed on at all, a destination in range, or the rule off: nothing sent again")
    func nothingResent() throws {
        let b = BoxKeyPair(), c = BoxKeyPair()
        // Every piece heard passed on, the second by another relay.
        var (all, pieces, sentAt) = try Self.origin(hearing: b, sendingTo: c.nodeID)
        for (index, piece) in pieces.enumerated() {
            all.hear(try MeshFrameCodec.relay(piece.bytes, by: index == 0 ? b.nodeID : BoxKeyPair().nodeID), at: sentAt + .seconds(2 + index))
        }
        all.timer(at: sentAt + .seconds(20))
        #expect(all.counters.piecesResent == 0)
        // The acknowledgement came before the second piece was due.
        var acked = try Self.origin(hearing: b, sendingTo: c.nodeID)
        acked.box.hear(try MeshFrameCodec.relay(acked.pieces[0].bytes, by: b.nodeID), at: acked.sentAt + .seconds(2))
        let key = PacketKey(origin: acked.box.me, packetID: try MeshFrameCodec.parse(acked.pieces[0].bytes).header.packetID)
        let ack = try MeshFrameCodec.relay(try MeshNodeLastHopRetryTests.ack(of: key.packetID, from: c.nodeID, to: acked.box.me), by: b.nodeID)
        #expect(acked.box.hear(ack, at: acked.sentAt + .seconds(3)).confirmations == [key])
        acked.box.timer(at: acked.sentAt + .seconds(20))
        #expect(acked.box.counters.piecesResent == 0)
        // Nothing passed on: the outbox's schedule, as before.
        var silent = try Self.origin(hearing: b, sendingTo: c.nodeID)
        silent.box.timer(at: silent.sentAt + .seconds(20))
        #expect(silent.box.counters.piecesResent == 0)
        // The destination is the neighbour: it answers itself (the quick retry).
        var near = try Self.origin(hearing: b, sendingTo: b.nodeID)
        near.box.hear(try MeshFrameCodec.relay(near.pieces[0].bytes, by: BoxKeyPair().nodeID), at: near.sentAt + .seconds(1))
        near.box.timer(at: near.sentAt + .seconds(20))
        #expect(near.box.counters.piecesResent == 0)
        // The rule off (the rule before).
        var off = try Self.origin(hearing: b, sendingTo: c.nodeID) { $0.missingPiecesResent = false }
        off.box.hear(try MeshFrameCodec.relay(off.pieces[0].bytes, by: b.nodeID), at: off.sentAt + .seconds(2))
        off.box.timer(at: off.sentAt + .seconds(20))
        #expect(off.box.counters.piecesResent == 0)
        #expect(try Self.piecesOut(&off.box, from: off.sentAt + .seconds(20)).isEmpty)
    }

    /// A relay (its key pair, id and draws from `seed`) that has heard the destination's hello
    /// at 1 s, with relay delays longer than the pieces (at LongFast the quiet rule alone keeps
    /// a leader's pieces together more often than not), and a message of `bytes` to that
    /// destination from a box further back.
    static func relay(seed: UInt64, together: Bool, bytes: Int) throws -> (box: MachineBox, message: [[UInt8]]) {
        let a = try keyPair(seed, 1), d = try keyPair(seed, 2)
        var router = MeshRouterConfiguration.standard
        router.relayPiecesTogether = together
        router.slot = .milliseconds(300)
        var box = try MachineBox(keyPair: try keyPair(seed, 3), router: router, seed: seed)
        box.timer(at: .zero)
        while box.radioIdle(at: .zero).frame != nil {}
        box.hear(try MeshNodeHelloTests.hello(from: d, keyed: true, listing: [], packetID: 1), at: .seconds(1))
        return (box, try MeshNodeLastHopRetryTests.message(from: a, to: d.nodeID, packetID: 100, bytes: bytes))
    }

    @Test("a relay passes a message's pieces on back to back, at the instant drawn for the first; each drew its own delay before")
    func relayedBackToBack() throws {
        var apart = 0
        for seed in UInt64(1)...12 {
            for together in [true, false] {
                var (box, message) = try Self.relay(seed: seed, together: together, bytes: 400)
                var t = Duration.seconds(10)
                for piece in message {
                    box.hear(piece, at: t)
                    t += Self.airtime(piece)
                }
                // The relay's pass, not its last-hop retry later (nobody acknowledges here).
                let out = Array(try Self.drain(&box, from: t, until: t + .seconds(60)).prefix(message.count))
                #expect(out.count == message.count)
                let gaps = zip(out, out.dropFirst()).map { $1.at - ($0.at + $0.frame.airtime) }
                if together {
                    #expect(gaps.allSatisfy { $0 == .zero }, "seed \(seed): \(gaps)")
                } else if gaps.contains(where: { $0 > .zero }) {
                    apart += 1
                }
            }
        }
        #expect(apart >= 4, "with a delay each, the pieces went apart on \(apart) of 12 seeds")
    }

    @Test("a relay that passed the last piece on hears the first late (the origin sent it again): it passes it on at once, not after a delay of its own")
    func latePieceAtOnce() throws {
        var delayed = 0
        for seed in UInt64(1)...12 {
            for together in [true, false] {
                var (box, message) = try Self.relay(seed: seed, together: together, bytes: 200)
                #expect(message.count == 2)
                box.hear(message[1], at: .seconds(10))
                #expect(try Self.drain(&box, from: .seconds(10), until: .seconds(20)).count == 1, "the last piece passed on")
                box.hear(message[0], at: .seconds(30))
                let late = try #require(try Self.drain(&box, from: .seconds(30), until: .seconds(40)).first)
                if together {
                    #expect(late.at == .seconds(30), "seed \(seed)")
                } else if late.at > .seconds(30) {
                    delayed += 1
                }
            }
        }
        #expect(delayed >= 10, "with a delay of its own, the late piece waited on \(delayed) of 12 seeds")
    }

    @Test("a relay that lacked a piece arms no last-hop retry; once it passes the late piece on, it waits for the answer then and sends every piece again, in order")
    func lastHopAfterTheLatePiece() throws {
        var (box, message) = try Self.relay(seed: 1, together: true, bytes: 200)
        box.hear(message[1], at: .seconds(10))
        #expect(try Self.drain(&box, from: .seconds(10), until: .seconds(35)).count == 1, "the last piece passed on, and no retry: the first is missing")
        #expect(box.counters.lastHopRetries == 0)
        box.hear(message[0], at: .seconds(40))
        let out = try Self.drain(&box, from: .seconds(40), until: .seconds(70))
        let pieces = try out.map { try #require(try MeshFrameCodec.parse($0.frame.bytes).header.fragment).index }
        #expect(pieces == [0, 0, 1], "the late piece at once, then the retry's pieces in order")
        #expect(out.first?.at == .seconds(40))
        #expect(box.counters.lastHopRetries == 1)
    }

    /// A — B — C at LongFast, their hellos exchanged; A sends `long` to C and its second piece
    /// is lost at B, the first time only. Returns when C delivered the message and when A had
    /// its acknowledgement, in seconds after the send, and A's and B's counters.
    static func lineWithSecondPieceLost(resent: Bool, together: Bool = true) throws
        -> (delivered: Double?, confirmed: Double?, a: MeshCounters, b: MeshCounters) {
        var router = MeshRouterConfiguration.standard
        router.relayPiecesTogether = together
        var line = try MachineLine(count: 3, router: router) { $0.missingPiecesResent = resent }
        line.run(until: .seconds(900))  // three hello periods: each knows its neighbours and theirs
        let sendAt = line.now
        let receipt = try line.boxes[0].send(long, to: line.boxes[2].me, at: sendAt)
        let key = PacketKey(origin: line.boxes[0].me, packetID: receipt.packetID)
        var lost = false
        line.lose = { from, to, header in
            guard !lost, from == 0, to == 1, header.kind == .directed, header.fragment?.index == 1 else { return false }
            lost = true
            return true
        }
        line.trace = []
        line.run(until: sendAt + .seconds(120))
        #expect(lost)
        func seconds(_ t: Duration?) -> Double? { t.map { RetrySchedule.seconds($0 - sendAt) } }
        return (seconds(line.delivered[2]?[key]), seconds(line.confirmed[0]?[key]), line.boxes[0].counters, line.boxes[1].counters)
    }

    @Test("A — B — C: A's second piece lost at B; A hears B pass the first on and not the second, sends it again, and C has the message seconds later, not after the outbox's 30 s")
    func lineWithALostPiece() throws {
        let now = try Self.lineWithSecondPieceLost(resent: true)
        let before = try Self.lineWithSecondPieceLost(resent: false)
        #expect(now.a.piecesResent == 1)
        #expect(before.a.piecesResent == 0)
        let delivered = try #require(now.delivered), confirmed = try #require(now.confirmed)
        let waited = try #require(before.delivered)
        #expect(delivered < 25, "delivered \(delivered) s after the send")
        #expect(confirmed < 30, "confirmed \(confirmed) s after the send")
        #expect(waited >= 30, "without the rule the outbox sent it again after 30 s: \(waited) s")
    }

    /// A started box that has heard the hellos of `relays` (at 1 s), each listing
    /// `destination`, and sends a one-frame message to it at 10 s; returns the frame as it
    /// went and the instant its airtime ended.
    static func firstHop(relays: [BoxKeyPair], listing destination: NodeID,
                         configure: (inout MeshNodeMachine<InMemoryNodeMemory>.Settings) -> Void = { _ in }) throws
        -> (box: MachineBox, frame: OutgoingFrame, end: Duration) {
        try sent(to: destination, hearing: relays.map { ($0, [destination]) }, configure: configure)
    }

    /// A started box that has heard each relay's hello (at 1 s) listing `lists`, and sends a
    /// one-frame message to `destination` at 10 s; returns the frame as it went and the
    /// instant its airtime ended.
    static func sent(to destination: NodeID, hearing hellos: [(relay: BoxKeyPair, lists: [NodeID])],
                     configure: (inout MeshNodeMachine<InMemoryNodeMemory>.Settings) -> Void) throws
        -> (box: MachineBox, frame: OutgoingFrame, end: Duration) {
        var box = try MachineBox(configure: configure)
        box.timer(at: .zero)
        while box.radioIdle(at: .zero).frame != nil {}
        for (relay, lists) in hellos {
            box.hear(try MeshNodeHelloTests.hello(from: relay, keyed: true, listing: lists, packetID: 1), at: .seconds(1))
        }
        _ = try box.send("for you", to: destination, at: .seconds(10))
        box.timer(at: .seconds(10))
        let out = try MeshNodeLastHopRetryTests.out(&box, from: .seconds(10))
        let sent = try #require(out.first)
        #expect(out.count == 1)
        return (box, sent.frame, sent.at + sent.frame.airtime)
    }

    /// The wait before a first-hop retry with `relays` neighbours hearing the destination: one
    /// rank step behind each other and the widest jitter (64 slots: 4.9 s at LongFast), then
    /// the frame passed on, the turnaround and the margin.
    static func firstHopWait(relays: Int, frame: OutgoingFrame) -> Duration {
        let c = MeshRouterConfiguration.standard
        return c.slot * ((relays - 1) * c.slotsPerRank + 64) + frame.airtime + turnaround + margin
    }

    @Test("no neighbour heard passing a message on to a box two hops away: sent again once, when the slowest neighbour that hears it would have passed it on plus the margin, to the nanosecond")
    func firstHopRetried() throws {
        for relays in [1, 2] {
            let c = BoxKeyPair()
            var (box, frame, end) = try Self.firstHop(relays: (0..<relays).map { _ in BoxKeyPair() }, listing: c.nodeID,
                                                      configure: MachineBox.exactRetries)
            let due = end + Self.firstHopWait(relays: relays, frame: frame)
            box.timer(at: due - .nanoseconds(1))
            #expect(box.counters.firstHopRetries == 0)
            #expect(try Self.piecesOut(&box, from: due - .nanoseconds(1)).isEmpty)
            box.timer(at: due)
            #expect(box.counters.firstHopRetries == 1)
            #expect(try Self.piecesOut(&box, from: due) == [frame.bytes], "the message as it went")
            #expect(try Self.drain(&box, from: due + .seconds(1), until: .seconds(39)).isEmpty, "once, then the outbox's 30 s")
            #expect(box.counters.quickRetries == 0)
        }
    }

    @Test("no first-hop retry when a neighbour was heard passing the message on, for a box no neighbour's hello lists, or with the rule off")
    func firstHopNotRetried() throws {
        let b = BoxKeyPair(), c = BoxKeyPair()
        var heard = try Self.firstHop(relays: [b], listing: c.nodeID)
        let due = heard.end + Self.firstHopWait(relays: 1, frame: heard.frame)
        heard.box.hear(try MeshFrameCodec.relay(heard.frame.bytes, by: b.nodeID), at: due - .milliseconds(1))
        heard.box.timer(at: due + .seconds(5))
        #expect(heard.box.counters.firstHopRetries == 0)
        // A second message, to c, whom b's hello does not list: where c is, nobody knows.
        var unknown = try Self.firstHop(relays: [b], listing: BoxKeyPair().nodeID)
        _ = try unknown.box.send("for c", to: c.nodeID, at: .seconds(11))
        unknown.box.timer(at: .seconds(30))
        #expect(unknown.box.counters.firstHopRetries == 1, "only the message to the box b lists")
        var off = try Self.firstHop(relays: [b], listing: c.nodeID) { $0.firstHopRetry = false }
        off.box.timer(at: .seconds(30))
        #expect(off.box.counters.firstHopRetries == 0)
        #expect(try Self.drain(&off.box, from: .seconds(30), until: .seconds(39)).isEmpty)
    }

    /// A — B — C at LongFast with a tenth of every frame lost at each receiver (hellos
    /// excepted, so each run starts from the same tables): 100 bottles of two pieces, one per
    /// run, seeds 1…100. Returns the seconds from the send until C had each (999: never) and
    /// the frames the three boxes sent for them (data, relays, acknowledgements, catch-up).
    /// `pieceRounds`, `lastHopRounds`: how many times at most the origin sends missing pieces
    /// again and the relay retries the last hop (by default the daemon's); `retryJitter`: the
    /// retries drawn apart as in the daemon (by default their exact waits, as these rules
    /// were measured).
    static func lossyLine(rules: Bool, pieceRounds: Int = 3, lastHopRounds: Int = 1, retryJitter: Bool = false) throws -> (latencies: [Double], frames: Int) {
        var latencies: [Double] = []
        var frames = 0
        for seed in UInt64(1)...100 {
            var router = MeshRouterConfiguration.standard
            router.relayPiecesTogether = rules
            var line = try MachineLine(count: 3, router: router) {
                if !retryJitter { MachineBox.exactRetries(&$0) }  // as measured for these rules (docs/mesh.md), before retries were drawn apart
                $0.missingPiecesResent = rules
                $0.missingPiecesRounds = pieceRounds
                $0.lastHopRetryRounds = lastHopRounds
                $0.firstHopRetry = rules
            }
            line.run(until: .seconds(900))
            let before = line.boxes.map { $0.counters.sentOwn + $0.counters.sentRelays + $0.counters.sentSync }
            let sendAt = line.now
            let receipt = try line.boxes[0].send(String(repeating: "x", count: 260), to: line.boxes[2].me, at: sendAt)
            #expect(receipt.frames == 2)
            let key = PacketKey(origin: line.boxes[0].me, packetID: receipt.packetID)
            var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            line.lose = { _, _, header in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return header.kind != .hello && Double(state >> 11) / Double(1 << 53) < 0.1
            }
            line.run(until: sendAt + .seconds(200))
            latencies.append(line.delivered[2]?[key].map { RetrySchedule.seconds($0 - sendAt) } ?? 999)
            frames += zip(line.boxes, before).map { $0.counters.sentOwn + $0.counters.sentRelays + $0.counters.sentSync - $1 }.reduce(0, +)
        }
        return (latencies, frames)
    }

    @Test("A — B — C with a tenth of the frames lost: 95 of 100 bottles at C within 20 s (79 without the rules); a piece lost twice goes a third time (3 over 30 s, 5 with one round); with three last-hop rounds too the slowest in 25 s, not 39")
    func lossyLineBottles() throws {
        let now = try Self.lossyLine(rules: true)
        let oneRound = try Self.lossyLine(rules: true, pieceRounds: 1)
        let threeLastHop = try Self.lossyLine(rules: true, lastHopRounds: 3)
        let before = try Self.lossyLine(rules: false, pieceRounds: 1)
        let drawn = try Self.lossyLine(rules: true, retryJitter: true)
        func over(_ run: (latencies: [Double], frames: Int), _ seconds: Double) -> Int { run.latencies.filter { $0 > seconds }.count }
        #expect(over(now, 20) <= 7, "\(over(now, 20)) of 100 over 20 s: \(now.latencies.sorted())")
        #expect(over(now, 30) < over(oneRound, 30), "pieces lost twice: \(now.latencies.sorted()) against \(oneRound.latencies.sorted())")
        #expect((threeLastHop.latencies.max() ?? 999) < 30, "a frame lost twice on either hop, then the outbox's 30 s: \(threeLastHop.latencies.sorted())")
        #expect((now.latencies.max() ?? 0) > 35, "with one last-hop round a last hop lost twice waits for the outbox: \(now.latencies.sorted())")
        #expect(over(before, 20) >= 15, "\(over(before, 20)) of 100 over 20 s without the rules: \(before.latencies.sorted())")
        #expect(now.frames <= before.frames, "\(now.frames) frames against \(before.frames)")
        #expect(threeLastHop.frames <= oneRound.frames, "\(threeLastHop.frames) frames against \(oneRound.frames) with one round")
        // The retries drawn apart (the daemon's default; the figures above are on exact waits):
        // 7 over 20 s, none over 30 s, the slowest in 26 s, 1 201 frames against 1 182.
        #expect(over(drawn, 20) <= 8, "\(over(drawn, 20)) of 100 over 20 s with the retries drawn apart: \(drawn.latencies.sorted())")
        #expect(drawn.frames * 100 <= now.frames * 105, "\(drawn.frames) frames against \(now.frames) on exact waits")
    }
}

/// Boxes in a line (each hears only the boxes beside it), on one LongFast channel, driven on
/// explicit instants: a frame reaches the neighbours of its sender when its airtime is over,
/// unless the receiver was on the air meanwhile (half duplex) or `lose` says so.
struct MachineLine {
    var boxes: [MachineBox]
    var now: Duration = .zero
    /// Whether the frame from box `from` is lost at box `to`.
    var lose: (_ from: Int, _ to: Int, _ header: MeshHeader) -> Bool = { _, _, _ in false }
    /// What each box delivered and had confirmed, by key, with the instant.
    var delivered: [Int: [PacketKey: Duration]] = [:]
    var confirmed: [Int: [PacketKey: Duration]] = [:]
    /// Every frame each box put on the air, with the instant.
    var sent: [(at: Duration, from: Int, frame: OutgoingFrame)] = []
    var trace: [String] = []
    private var timerAt: [Duration]
    private var radioAt: [Duration?]
    private var onAirUntil: [Duration]
    private var onAirSince: [Duration]
    private var inFlight: [(end: Duration, from: Int, bytes: [UInt8])] = []

    init(count: Int, router: MeshRouterConfiguration = .standard,
         configure: (inout MeshNodeMachine<InMemoryNodeMemory>.Settings) -> Void = { _ in }) throws {
        boxes = try (0..<count).map {
            try MachineBox(keyPair: try MeshNodeMissingPiecesTests.keyPair(UInt64($0), 9), router: router, seed: UInt64($0 + 1), configure: configure)
        }
        timerAt = Array(repeating: .zero, count: count)
        radioAt = Array(repeating: .zero, count: count)
        onAirUntil = Array(repeating: .zero, count: count)
        onAirSince = Array(repeating: .zero, count: count)
    }

    private mutating func note(_ actions: [MeshNodeAction], of i: Int, radio: Bool) {
        for action in actions {
            switch action {
            case .deliver(let d): if delivered[i]?[d.key] == nil { delivered[i, default: [:]][d.key] = now }
            case .confirmed(let key): if confirmed[i]?[key] == nil { confirmed[i, default: [:]][key] = now }
            case .wake(let at): if radio { radioAt[i] = at } else { timerAt[i] = at }
            case .transmit(let frame):
                sent.append((now, i, frame))
                onAirSince[i] = now
                onAirUntil[i] = now + frame.airtime
                radioAt[i] = onAirUntil[i]
                inFlight.append((onAirUntil[i], i, frame.bytes))
                if let h = try? MeshFrameCodec.parse(frame.bytes).header, h.kind != .hello {
                    trace.append("\(RetrySchedule.seconds(now)) box \(i) sends \(h.kind) \(h.origin == boxes[0].me ? "A" : h.origin == boxes[1].me ? "B" : "C")#\(h.packetID) piece \(h.fragment.map { "\($0.index)/\($0.count)" } ?? "-") hops \(h.hopsTaken) until \(RetrySchedule.seconds(onAirUntil[i]))")
                }
            default: break
            }
        }
    }

    /// Box `i` hears `bytes` now (a frame from a neighbour, or from a box beyond the line), and
    /// looks at its timers and radio.
    mutating func hear(_ bytes: [UInt8], by i: Int) {
        note(boxes[i].hear(bytes, at: now), of: i, radio: false)
        timerAt[i] = now
        if onAirUntil[i] <= now { radioAt[i] = now }
    }

    mutating func run(until end: Duration) {
        while now <= end {
            // Frames whose airtime is over reach the sender's neighbours.
            let arriving = inFlight.filter { $0.end <= now }
            inFlight.removeAll { $0.end <= now }
            for frame in arriving {
                guard let header = try? MeshFrameCodec.parse(frame.bytes).header else { continue }
                for r in [frame.from - 1, frame.from + 1] where boxes.indices.contains(r) {
                    let start = frame.end - LoRaAirtime.duration(payloadBytes: frame.bytes.count, modulation: .longFast)
                    if onAirUntil[r] > start, onAirSince[r] < frame.end { continue }  // r was on the air
                    if lose(frame.from, r, header) {
                        trace.append("\(RetrySchedule.seconds(now)) lost at box \(r): \(header.kind) #\(header.packetID) from box \(frame.from)")
                        continue
                    }
                    hear(frame.bytes, by: r)
                }
            }
            for i in boxes.indices where timerAt[i] <= now {
                note(boxes[i].handle(.timer, at: now), of: i, radio: false)
                if onAirUntil[i] <= now { radioAt[i] = now }
            }
            for i in boxes.indices where onAirUntil[i] <= now && (radioAt[i].map { $0 <= now } ?? false) {
                // Listen before talk: a neighbour's frame on the air is waited out.
                let heard = [i - 1, i + 1].filter { boxes.indices.contains($0) }.map { onAirUntil[$0] }.max() ?? .zero
                if heard > now {
                    radioAt[i] = heard
                    continue
                }
                radioAt[i] = nil
                note(boxes[i].handle(.radioIdle, at: now), of: i, radio: true)
            }
            let next = (timerAt + radioAt.compactMap { $0 } + inFlight.map(\.end)).filter { $0 > now }.min()
            guard let next else { return }
            now = next
        }
    }
}
