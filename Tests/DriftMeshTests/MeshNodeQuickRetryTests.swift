import DriftMesh
import Foundation
import Testing

/// A directed message to a neighbour whose acknowledgement does not come when it should have is
/// sent again at once, not after the outbox's 30 s (a lost frame cost a bottle to the next box
/// 30 s on real daemons). Explicit instants, no clock, no sleep.
@Suite("Mesh node machine: the quick retry to a neighbour")
struct MeshNodeQuickRetryTests {
    static let sealer = try! MeshSealer(networkKey: MachineBox.networkKey)
    static let ackAirtime = LoRaAirtime.duration(
        payloadBytes: MeshFrameCodec.overheadBytes(hasDestination: true, fragmented: false, originTagged: false) + 4, modulation: .longFast)
    /// The default margin at LongFast: the longest frame's airtime and the 500 ms turnaround.
    static let margin = LoRaAirtime.duration(payloadBytes: MeshFrame.maxBytes, modulation: .longFast) + .milliseconds(500)

    /// A started box that has heard `neighbour`'s hello (at 1 s) and drained its radio.
    static func box(hearing neighbour: BoxKeyPair,
                    configure: (inout MeshNodeMachine<InMemoryNodeMemory>.Settings) -> Void = { _ in }) throws -> MachineBox {
        var box = try MachineBox(configure: configure)
        box.timer(at: .zero)
        while box.radioIdle(at: .zero).frame != nil {}
        let hello = MeshHeader(kind: .hello, origin: neighbour.nodeID, packetID: 1, hopStart: 0,
                               expiresAtMinute: MeshHeader.expiryMinute(now: MachineBox.epoch, lifetime: 600))
        box.hear(try sealer.seal(header: hello, plaintext: HelloPayload(publicKey: neighbour.publicKeyBytes, neighbours: []).encoded()),
                 at: .seconds(1))
        return box
    }

    /// Sends "for you" to `destination` at 10 s; returns the instant its frame went on air and the frame.
    static func send(_ box: inout MachineBox, to destination: NodeID) throws -> (at: Duration, frame: OutgoingFrame) {
        let t = Duration.seconds(10)
        _ = try box.send("for you", to: destination, at: t)
        box.timer(at: t)
        let frame = try #require(box.radioIdle(at: t).frame)
        #expect(try MachineBox.kind(frame) == .directed)
        return (t, frame)
    }

    /// The directed frames the box puts on the air from `t` on, one time on air after another
    /// (its other frames, a digest for the new neighbour, may go first).
    static func directedOut(_ box: inout MachineBox, at t: Duration) throws -> Int {
        var count = 0
        var now = t
        while true {
            let (frame, wake) = box.radioIdle(at: now)
            if let frame {
                if try MachineBox.kind(frame) == .directed { count += 1 }
            } else if let wake, wake <= now + .seconds(5) {
                now = wake
            } else {
                return count
            }
        }
    }

    @Test("no acknowledgement from the neighbour: sent again once, when the answer was due plus the margin, to the nanosecond; the outbox's next attempt stays 30 s after the first sending (45 s after the quick retry when it counted as an attempt)",
          arguments: [true, false])
    func quickRetry(keepsSchedule: Bool) throws {
        let neighbour = BoxKeyPair()
        var box = try Self.box(hearing: neighbour) {
            MachineBox.exactRetries(&$0)
            $0.quickRetryKeepsSchedule = keepsSchedule
            $0.quickRetryRounds = 1  // one round (the second: `secondRound`)
        }
        let (sentAt, frame) = try Self.send(&box, to: neighbour.nodeID)
        let retryAt = sentAt + frame.airtime + .milliseconds(500) + Self.ackAirtime + Self.margin
        box.timer(at: retryAt - .nanoseconds(1))
        #expect(box.counters.quickRetries == 0)
        #expect(try Self.directedOut(&box, at: retryAt - .nanoseconds(1)) == 0)
        box.timer(at: retryAt)
        #expect(box.counters.quickRetries == 1)
        #expect(try Self.directedOut(&box, at: retryAt) == 1)
        // Once only: the next attempt waits on the outbox's schedule.
        let id = try MeshFrameCodec.parse(frame.bytes).header.key
        #expect(box.machine.memory.outbox[id]?.attempts == (keepsSchedule ? 1 : 2))
        let next = keepsSchedule ? sentAt + .seconds(30) : retryAt + .seconds(45)
        var t = retryAt
        var more = 0
        while t < next {
            t = min(box.timer(at: t), t + .seconds(1), next)
            if t < next { more += try Self.directedOut(&box, at: t) }
        }
        #expect(more == 0, "sent again before the outbox's next attempt")
        #expect(box.counters.quickRetries == 1)
        // The outbox looks every 5 s while something waits: the attempt within 5 s of its time.
        while t <= next + .seconds(5), more == 0 {
            t = min(box.timer(at: t), t + .seconds(1))
            more += try Self.directedOut(&box, at: t)
        }
        #expect(more == 1, "the outbox's attempt")
        #expect(t <= next + .seconds(5), "at \(t), due \(next)")
        #expect(box.machine.memory.outbox[id]?.attempts == (keepsSchedule ? 2 : 3))
        #expect(box.counters.quickRetries == 1)
    }

    @Test("the quick retry unanswered too: sent once more when its answer was due plus the margin, to the nanosecond, and never a third time; on a crowded channel that second round is left to the outbox",
          arguments: [false, true])
    func secondRound(crowded: Bool) throws {
        let neighbour = BoxKeyPair()
        var box = try Self.box(hearing: neighbour) {
            MachineBox.exactRetries(&$0)
            // Crowded: any frame heard over the last minute passes the threshold.
            if crowded { $0.backgroundBusyThreshold = 0.001 }
        }
        #expect(box.machine.settings.quickRetryRounds == 2)
        let (sentAt, frame) = try Self.send(&box, to: neighbour.nodeID)
        let wait = frame.airtime + .milliseconds(500) + Self.ackAirtime + Self.margin
        box.timer(at: sentAt + wait)
        #expect(try Self.directedOut(&box, at: sentAt + wait) == 1, "the first quick retry")
        if crowded { box.hear(Array(repeating: 0x55, count: 200), at: sentAt + wait + frame.airtime + .seconds(1)) }
        let second = sentAt + wait * 2  // the retry went on the air when it was due
        box.timer(at: second - .nanoseconds(1))
        #expect(try Self.directedOut(&box, at: second - .nanoseconds(1)) == 0)
        box.timer(at: second)
        #expect(try Self.directedOut(&box, at: second) == (crowded ? 0 : 1))
        #expect(box.counters.quickRetries == (crowded ? 1 : 2))
        #expect(box.counters.quickRetriesBusy == (crowded ? 1 : 0))
        // Never a third: the next attempt is the outbox's, 30 s after the first sending.
        var t = second
        var more = 0
        while t < sentAt + .seconds(30) {
            t = min(box.timer(at: t), t + .seconds(1), sentAt + .seconds(30))
            if t < sentAt + .seconds(30) { more += try Self.directedOut(&box, at: t) }
        }
        #expect(more == 0, "sent again before the outbox's next attempt")
        #expect(box.counters.quickRetries == (crowded ? 1 : 2))
    }

    @Test("a box heard directly counts as in range without its hello (one hello per 5 minutes, easily lost)")
    func heardDirectlyWithoutHello() throws {
        var box = try MachineBox(configure: MachineBox.exactRetries)
        box.timer(at: .zero)
        while box.radioIdle(at: .zero).frame != nil {}
        let neighbour = BoxKeyPair()
        box.hear(try MachineBox.frame("box info", packetID: 3, origin: neighbour), at: .seconds(1))  // no hops taken, none left
        let (sentAt, frame) = try Self.send(&box, to: neighbour.nodeID)
        box.timer(at: sentAt + frame.airtime + .milliseconds(500) + Self.ackAirtime + Self.margin)
        #expect(box.counters.quickRetries == 1)
        // Heard only through a relay: not in range, no quick retry.
        var other = try MachineBox()
        other.timer(at: .zero)
        while other.radioIdle(at: .zero).frame != nil {}
        let far = BoxKeyPair()
        other.hear(try MeshFrameCodec.relay(try MachineBox.frame("box info", packetID: 3, origin: far, hopStart: 1), by: BoxKeyPair().nodeID),
                   at: .seconds(1))
        let (farAt, farFrame) = try Self.send(&other, to: far.nodeID)
        other.timer(at: farAt + farFrame.airtime + .milliseconds(500) + Self.ackAirtime + Self.margin)
        #expect(other.counters.quickRetries == 0)
    }

    @Test("a box two hops away: the wait adds the longest relay delay, turnaround and frame each way, to the nanosecond at SF7; at LongFast that passes the outbox's 30 s, so none")
    func twoHops() throws {
        // C two hops away: its box info reached us through one relay.
        let c = BoxKeyPair()
        let heardThroughB = try MeshFrameCodec.relay(try MachineBox.frame("box info", packetID: 3, origin: c, hopStart: 1), by: BoxKeyPair().nodeID)
        let sf7 = LoRaModulation(spreadingFactor: 7)
        for modulation in [sf7, .longFast] {
            var router = MeshRouterConfiguration.standard
            router.slot = modulation.slot
            var box = try MachineBox(router: router) {
                MachineBox.exactRetries(&$0)
                $0.modulation = modulation
            }
            box.timer(at: .zero)
            while box.radioIdle(at: .zero).frame != nil {}
            box.hear(heardThroughB, at: .seconds(2))
            let (sentAt, frame) = try Self.send(&box, to: c.nodeID)
            let turnaround = Duration.milliseconds(500)
            let ack = LoRaAirtime.duration(
                payloadBytes: MeshFrameCodec.overheadBytes(hasDestination: true, fragmented: false, originTagged: false) + 4, modulation: modulation)
            let relayDelay = modulation.slot * 288  // the flooding fallback's longest: 96 + 192 slots
            let margin = LoRaAirtime.duration(payloadBytes: MeshFrame.maxBytes, modulation: modulation) + turnaround
            let wait = frame.airtime + turnaround + ack + (relayDelay + turnaround + frame.airtime) + (relayDelay + turnaround + ack) + margin
            box.timer(at: sentAt + wait - .nanoseconds(1))
            #expect(box.counters.quickRetries == 0)
            box.timer(at: sentAt + wait)
            if modulation == sf7 {
                #expect(wait < .seconds(10))
                #expect(box.counters.quickRetries == 1)
            } else {
                #expect(wait > .seconds(30))
                #expect(box.counters.quickRetries == 0)
            }
        }
    }

    @Test("the acknowledgement in time: no quick retry")
    func acknowledgedInTime() throws {
        let neighbour = BoxKeyPair()
        var box = try Self.box(hearing: neighbour)
        let (sentAt, frame) = try Self.send(&box, to: neighbour.nodeID)
        let header = try MeshFrameCodec.parse(frame.bytes).header
        var payload: [UInt8] = []
        withUnsafeBytes(of: header.packetID.bigEndian) { payload.append(contentsOf: $0) }
        let ack = MeshHeader(kind: .ack, origin: neighbour.nodeID, packetID: 7, destination: box.me, hopStart: 3,
                             expiresAtMinute: MeshHeader.expiryMinute(now: MachineBox.epoch, lifetime: 3_600))
        #expect(box.hear(try Self.sealer.seal(header: ack, plaintext: payload), at: sentAt + .seconds(1)).confirmations.count == 1)
        box.timer(at: sentAt + .seconds(20))
        #expect(box.counters.quickRetries == 0)
        #expect(try Self.directedOut(&box, at: sentAt + .seconds(20)) == 0)
    }

    @Test("to a box that is not a neighbour: no quick retry; the outbox's 30 s decide")
    func notANeighbour() throws {
        var box = try Self.box(hearing: BoxKeyPair())
        let (sentAt, _) = try Self.send(&box, to: BoxKeyPair().nodeID)
        var t = sentAt
        var retries: [Duration] = []
        while t < sentAt + .seconds(29) {
            t = min(box.timer(at: t), t + .seconds(1))
            if try Self.directedOut(&box, at: t) > 0 { retries.append(t) }
        }
        #expect(box.counters.quickRetries == 0)
        #expect(retries.isEmpty, "sent again before the outbox's 30 s: \(retries)")
    }
}
