import DriftMesh
import Foundation
import Testing

/// A box that relays a directed message to its destination — a neighbour it hears — sends it
/// once more when the destination's acknowledgement is not heard when it should have come, so
/// a frame lost on the last hop costs a second or a few, not the origin's wait for the longest
/// relay delays there and back (9.4 s at SF7, the outbox's 30 s at LongFast). Explicit
/// instants, no clock, no sleep.
@Suite("Mesh node machine: the last-hop retry of a relay, and acknowledgements again for retries only")
struct MeshNodeLastHopRetryTests {
    static let sealer = MeshNodeQuickRetryTests.sealer
    static let ackAirtime = MeshNodeQuickRetryTests.ackAirtime
    static let margin = MeshNodeQuickRetryTests.margin
    static let heardAt = Duration.seconds(10)

    /// The relay under test, started, its radio drained, that has heard `destination`'s hello
    /// at 1 s (unless `hearsDestination` is false). Relays wait at most 3 ms.
    static func relay(hearing destination: BoxKeyPair, hearsDestination: Bool = true,
                      configure: (inout MeshNodeMachine<InMemoryNodeMemory>.Settings) -> Void = { _ in }) throws -> MachineBox {
        var fast = MeshRouterConfiguration.standard
        fast.slot = .microseconds(10)  // a relay waits at most 288 slots
        var box = try MachineBox(router: fast, configure: configure)
        box.timer(at: .zero)
        while box.radioIdle(at: .zero).frame != nil {}
        if hearsDestination {
            let hello = MeshHeader(kind: .hello, origin: destination.nodeID, packetID: 1, hopStart: 0,
                                   expiresAtMinute: MeshHeader.expiryMinute(now: MachineBox.epoch, lifetime: 600))
            box.hear(try sealer.seal(header: hello, plaintext: HelloPayload(publicKey: destination.publicKeyBytes, neighbours: []).encoded()),
                     at: .seconds(1))
        }
        return box
    }

    /// A message from `origin` to `destination` that wants an acknowledgement: `bytes` of
    /// payload, sealed into as many frames as it takes, as the origin sends them (no hops taken).
    static func message(from origin: BoxKeyPair, to destination: NodeID, packetID: UInt32 = 40, bytes: Int = 20) throws -> [[UInt8]] {
        let base = MeshHeader(kind: .directed, origin: origin.nodeID, packetID: packetID, destination: destination, hopStart: 3,
                              wantsAck: true, expiresAtMinute: MeshHeader.expiryMinute(now: MachineBox.epoch, lifetime: 3_600))
        return try sealer.sealPayload([1] + Array(repeating: 0x42, count: bytes), base: base, originKey: nil)
    }

    /// `destination`'s acknowledgement of `packetID` to `origin`.
    static func ack(of packetID: UInt32, from destination: NodeID, to origin: NodeID) throws -> [UInt8] {
        let header = MeshHeader(kind: .ack, origin: destination, packetID: 7, destination: origin, hopStart: 3,
                                expiresAtMinute: MeshHeader.expiryMinute(now: MachineBox.epoch, lifetime: 3_600))
        var payload: [UInt8] = []
        withUnsafeBytes(of: packetID.bigEndian) { payload.append(contentsOf: $0) }
        return try sealer.seal(header: header, plaintext: payload)
    }

    /// The frames of `kind` the box puts on the air from `t` until it has nothing more within
    /// `horizon`, with the instant each went (its other frames may go between them).
    static func out(_ box: inout MachineBox, _ kind: FrameKind = .directed, from t: Duration,
                    horizon: Duration = .seconds(5)) throws -> [(at: Duration, frame: OutgoingFrame)] {
        var out: [(Duration, OutgoingFrame)] = []
        var now = t
        while true {
            let (frame, wake) = box.radioIdle(at: now)
            if let frame {
                if try MachineBox.kind(frame) == kind { out.append((now, frame)) }
                now += frame.airtime
            } else if let wake, wake <= now + horizon {
                now = wake
            } else {
                return out
            }
        }
    }

    /// Hears `frames` (one time on air apart, from `heardAt`), runs the relay timer, and
    /// returns the relayed frames with the instant the last of them went on air.
    static func relayed(_ box: inout MachineBox, _ frames: [[UInt8]]) throws -> (lastAt: Duration, frames: [OutgoingFrame]) {
        var t = heardAt
        for frame in frames {
            box.hear(frame, at: t)
            t += LoRaAirtime.duration(payloadBytes: frame.count, modulation: .longFast)
        }
        box.timer(at: t + .milliseconds(5))
        let out = try out(&box, from: t + .milliseconds(5))
        let last = try #require(out.last)
        return (last.at, out.map(\.frame))
    }

    @Test("no acknowledgement from the destination: the relay sends the message once more when the answer was due plus the margin, to the nanosecond, and never again; with three rounds, again after each retry, three times")
    func retriedOnceOrThreeTimes() throws {
        let a = BoxKeyPair(), d = BoxKeyPair()
        var box = try Self.relay(hearing: d) {
            MachineBox.exactRetries(&$0)
            $0.lastHopRetryRounds = 3
        }
        let (relayedAt, frames) = try Self.relayed(&box, try Self.message(from: a, to: d.nodeID))
        #expect(frames.count == 1)
        var due = relayedAt + frames[0].airtime + .milliseconds(500) + Self.ackAirtime + Self.margin
        for round in 1...3 {
            box.timer(at: due - .nanoseconds(1))
            #expect(box.counters.lastHopRetries == round - 1, "round \(round)")
            #expect(try Self.out(&box, from: due - .nanoseconds(1), horizon: .zero).isEmpty, "round \(round)")
            box.timer(at: due)
            #expect(box.counters.lastHopRetries == round, "round \(round)")
            let again = try Self.out(&box, from: due)
            #expect(again.map(\.frame.bytes) == [frames[0].bytes], "round \(round): the frame as it went the first time")
            let sent = try #require(again.last)
            due = sent.at + sent.frame.airtime + .milliseconds(500) + Self.ackAirtime + Self.margin
        }
        // Three times only, however long the destination stays silent.
        #expect(Self.silentMinute(&box, from: due) == 0)
        #expect(box.counters.lastHopRetries == 3)
        #expect(box.counters.quickRetries == 0, "the relay's retry is not the origin's")

        // One round (the default): once only, however long the destination stays silent.
        var once = try Self.relay(hearing: d, configure: MachineBox.exactRetries)
        let first = try Self.relayed(&once, try Self.message(from: a, to: d.nodeID))
        let onceDue = first.lastAt + first.frames[0].airtime + .milliseconds(500) + Self.ackAirtime + Self.margin
        once.timer(at: onceDue)
        #expect(try Self.out(&once, from: onceDue).count == 1)
        #expect(Self.silentMinute(&once, from: onceDue) == 0)
        #expect(once.counters.lastHopRetries == 1)
    }

    @Test("with three rounds, the acknowledgement heard after the first retry: no second")
    func ackAfterTheFirstRetry() throws {
        let a = BoxKeyPair(), d = BoxKeyPair()
        var box = try Self.relay(hearing: d) {
            MachineBox.exactRetries(&$0)
            $0.lastHopRetryRounds = 3
        }
        let (relayedAt, frames) = try Self.relayed(&box, try Self.message(from: a, to: d.nodeID))
        let due = relayedAt + frames[0].airtime + .milliseconds(500) + Self.ackAirtime + Self.margin
        box.timer(at: due)
        let sent = try #require(try Self.out(&box, from: due).last)
        box.hear(try Self.ack(of: 40, from: d.nodeID, to: a.nodeID), at: sent.at + sent.frame.airtime + .milliseconds(600))
        #expect(Self.silentMinute(&box, from: sent.at + sent.frame.airtime + .milliseconds(600)) == 0)
        #expect(box.counters.lastHopRetries == 1)
    }

    /// The directed frames `box` sends over the minute from `t`, its timers run at least every second.
    static func silentMinute(_ box: inout MachineBox, from start: Duration) -> Int {
        var t = start
        var more = 0
        while t < start + .seconds(60) {
            t = min(box.timer(at: t), t + .seconds(1))
            more += (try? Self.out(&box, from: t, horizon: .zero).count) ?? 0
        }
        return more
    }

    @Test("the acknowledgement heard in time, straight from the destination or relayed by another box: no retry")
    func acknowledged() throws {
        for relayedAck in [false, true] {
            let a = BoxKeyPair(), d = BoxKeyPair()
            var box = try Self.relay(hearing: d)
            let (relayedAt, _) = try Self.relayed(&box, try Self.message(from: a, to: d.nodeID))
            var ack = try Self.ack(of: 40, from: d.nodeID, to: a.nodeID)
            if relayedAck { ack = try MeshFrameCodec.relay(ack, by: BoxKeyPair().nodeID) }
            box.hear(ack, at: relayedAt + .seconds(1))
            box.timer(at: relayedAt + .seconds(20))
            #expect(box.counters.lastHopRetries == 0)
            #expect(try Self.out(&box, from: relayedAt + .seconds(20)).isEmpty)
        }
    }

    @Test("an acknowledgement from another box, or of another message, does not stop the retry")
    func otherAcks() throws {
        let a = BoxKeyPair(), d = BoxKeyPair()
        var box = try Self.relay(hearing: d)
        let (relayedAt, _) = try Self.relayed(&box, try Self.message(from: a, to: d.nodeID))
        box.hear(try Self.ack(of: 40, from: BoxKeyPair().nodeID, to: a.nodeID), at: relayedAt + .milliseconds(700))
        box.hear(try Self.ack(of: 41, from: d.nodeID, to: a.nodeID), at: relayedAt + .milliseconds(1_400))
        box.timer(at: relayedAt + .seconds(20))
        #expect(box.counters.lastHopRetries == 1)
    }

    @Test("a message in pieces: every piece goes once more, the earlier ones as this box relays them")
    func pieces() throws {
        let a = BoxKeyPair(), d = BoxKeyPair()
        var box = try Self.relay(hearing: d)
        let message = try Self.message(from: a, to: d.nodeID, packetID: 100, bytes: 400)
        #expect(message.count > 1)
        let (relayedAt, frames) = try Self.relayed(&box, message)
        #expect(frames.count == message.count)
        box.timer(at: relayedAt + .seconds(20))
        #expect(box.counters.lastHopRetries == 1)
        let again = try Self.out(&box, from: relayedAt + .seconds(20))
        #expect(again.map(\.frame.bytes) == frames.map(\.bytes))
    }

    @Test("not for a neighbour, or with the rule off: only the origin retries")
    func notArmed() throws {
        let a = BoxKeyPair(), d = BoxKeyPair()
        // The destination was never heard here: it is further on.
        var far = try Self.relay(hearing: d, hearsDestination: false)
        let (farAt, farFrames) = try Self.relayed(&far, try Self.message(from: a, to: d.nodeID))
        #expect(farFrames.count == 1, "relayed on towards a destination further away")
        far.timer(at: farAt + .seconds(20))
        #expect(far.counters.lastHopRetries == 0)
        // The rule off (the rule before).
        var off = try Self.relay(hearing: d) { $0.lastHopRetry = false }
        let (offAt, _) = try Self.relayed(&off, try Self.message(from: a, to: d.nodeID))
        off.timer(at: offAt + .seconds(20))
        #expect(off.counters.lastHopRetries == 0)
        #expect(try Self.out(&off, from: offAt + .seconds(20)).isEmpty)
    }

    /// A destination that got `message` from relay `b` at 1 s and acknowledged it, radio drained.
    static func destination(_ configure: (inout MeshNodeMachine<InMemoryNodeMemory>.Settings) -> Void = { _ in })
        throws -> (box: MachineBox, message: [UInt8], b: NodeID) {
        var d = try MachineBox(configure: configure)
        d.timer(at: .zero)
        while d.radioIdle(at: .zero).frame != nil {}
        let b = BoxKeyPair().nodeID
        let message = try Self.message(from: BoxKeyPair(), to: d.me)[0]
        #expect(d.hear(try MeshFrameCodec.relay(message, by: b), at: .seconds(1)).deliveries.count == 1)
        #expect(try Self.out(&d, .ack, from: .seconds(1)).count == 1)
        return (d, message, b)
    }

    @Test("the destination acknowledges again the relay's retry — a lost acknowledgement is mended too — and the origin's own copy, not another relay's copy of the same flood, nor a retry within the margin of its last acknowledgement")
    func acknowledgedAgainForRetriesOnly() throws {
        var (d, message, b) = try Self.destination()
        // Another relay's copy, seconds later: the flood's own, no new acknowledgement.
        #expect(d.hear(try MeshFrameCodec.relay(message, by: BoxKeyPair().nodeID), at: .seconds(3)).deliveries.isEmpty)
        #expect(try Self.out(&d, .ack, from: .seconds(3)).isEmpty)
        #expect(d.counters.acksNotRepeated == 1)
        // The relay sends its copy again (no acknowledgement heard there): acknowledged again.
        #expect(d.hear(try MeshFrameCodec.relay(message, by: b), at: .seconds(5)).deliveries.isEmpty, "delivered once")
        #expect(try Self.out(&d, .ack, from: .seconds(5)).count == 1)
        // The origin's own copy within the margin of that acknowledgement (2.5 s at LongFast:
        // the relays passing one retry on come together): nothing more.
        d.hear(message, at: .seconds(7))
        #expect(try Self.out(&d, .ack, from: .seconds(7)).isEmpty)
        // The origin's own copy again later (its quick retry): acknowledged again.
        d.hear(message, at: .seconds(10))
        #expect(try Self.out(&d, .ack, from: .seconds(10)).count == 1)
        #expect(d.counters.acksRepeated == 2)
        #expect(d.counters.acksNotRepeated == 2)
    }

    @Test("an end-to-end retry by any path is acknowledged again from retrySpacing after the last acknowledgement, not a nanosecond before")
    func acknowledgedAgainAfterSpacing() throws {
        var (d, message, _) = try Self.destination()
        let spacing = Duration.seconds(15)  // MachineBox's retrySpacing
        let ackedAt = Duration.seconds(1)
        d.hear(try MeshFrameCodec.relay(message, by: BoxKeyPair().nodeID), at: ackedAt + spacing - .nanoseconds(1))
        #expect(try Self.out(&d, .ack, from: ackedAt + spacing - .nanoseconds(1)).isEmpty)
        d.hear(try MeshFrameCodec.relay(message, by: BoxKeyPair().nodeID), at: ackedAt + spacing)
        #expect(try Self.out(&d, .ack, from: ackedAt + spacing).count == 1)
        #expect(d.counters.acksRepeated == 1)
        #expect(d.counters.acksNotRepeated == 1)
    }

    @Test("with the rule off (the rule before) every copy is acknowledged again")
    func everyCopyAcknowledgedWhenOff() throws {
        var (d, message, _) = try Self.destination { $0.acksRepeatedForRetriesOnly = false }
        d.hear(try MeshFrameCodec.relay(message, by: BoxKeyPair().nodeID), at: .seconds(3))
        #expect(try Self.out(&d, .ack, from: .seconds(3)).count == 1)
        #expect(d.counters.acksRepeated == 1)
        #expect(d.counters.acksNotRepeated == 0)
    }
}
