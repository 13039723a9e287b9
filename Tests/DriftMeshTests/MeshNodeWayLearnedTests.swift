import DriftMesh
import Foundation
import Testing

/// A directed message of ours sent before this box knew any way to its destination — the box
/// had just started, or the destination had — gets its first-hop and quick retries once the way
/// is learned, timed from the sending (`MeshNodeMachine.Settings.retriesArmedOnceTheWayIsKnown`).
/// On three real daemons in a line, A's message to C went 2 s after the boxes started, before
/// B's hello listed C; its frame was lost at B and it waited 34 s for the outbox, in 2 of 6 runs.
/// Explicit instants, no clock, no sleep.
@Suite("Mesh node machine: retries armed once the way is known")
struct MeshNodeWayLearnedTests {
    /// A started box that has heard relay `b`'s hello (at 1 s, listing nobody) and sends "for
    /// you" to `destination` at 10 s; returns the frame as it went and the instant its airtime ended.
    static func sentBeforeTheWay(relay b: BoxKeyPair, to destination: NodeID,
                                 configure: (inout MeshNodeMachine<InMemoryNodeMemory>.Settings) -> Void = MachineBox.exactRetries)
        throws -> (box: MachineBox, frame: OutgoingFrame, end: Duration) {
        try MeshNodeMissingPiecesTests.sent(to: destination, hearing: [(b, [])], configure: configure)
    }

    @Test("B's hello lists C only after A's message to C went: the first-hop retry is armed then, due when it would have been had A known, to the nanosecond; one already late goes at once; with the rule off the outbox's 30 s")
    func firstHopArmedLate() throws {
        let b = BoxKeyPair(), c = BoxKeyPair()
        var (box, frame, end) = try Self.sentBeforeTheWay(relay: b, to: c.nodeID)
        let due = end + MeshNodeMissingPiecesTests.firstHopWait(relays: 1, frame: frame)
        box.hear(try MeshNodeHelloTests.hello(from: b, keyed: true, listing: [c.nodeID], packetID: 2), at: end + .milliseconds(400))
        box.timer(at: end + .milliseconds(400))
        #expect(box.counters.retriesArmedLate == 1)
        box.timer(at: due - .nanoseconds(1))
        #expect(box.counters.firstHopRetries == 0)
        #expect(try MeshNodeMissingPiecesTests.piecesOut(&box, from: due - .nanoseconds(1)).isEmpty)
        box.timer(at: due)
        #expect(box.counters.firstHopRetries == 1)
        #expect(try MeshNodeMissingPiecesTests.piecesOut(&box, from: due) == [frame.bytes], "the message as it went")
        #expect(try MeshNodeMissingPiecesTests.drain(&box, from: due + .seconds(1), until: .seconds(39)).isEmpty, "once, then the outbox's 30 s")

        // The way learned after the moment: the retry is due at once.
        var late = try Self.sentBeforeTheWay(relay: b, to: c.nodeID)
        let lateAt = due + .seconds(2)
        late.box.hear(try MeshNodeHelloTests.hello(from: b, keyed: true, listing: [c.nodeID], packetID: 2), at: lateAt)
        late.box.timer(at: lateAt)
        #expect(late.box.counters.firstHopRetries == 1)
        #expect(try MeshNodeMissingPiecesTests.piecesOut(&late.box, from: lateAt) == [late.frame.bytes])

        // Learned once the sending is as old as a quick retry may wait (5 s here, not the
        // outbox's 30 s, so that its attempt stays out of the way), the outbox's schedule decides;
        // the rule off, nothing is armed.
        var stale = try Self.sentBeforeTheWay(relay: b, to: c.nodeID) {
            MachineBox.exactRetries(&$0)
            $0.quickRetryUnder = .seconds(5)
        }
        let staleAt = stale.end - stale.frame.airtime + .seconds(5)
        stale.box.hear(try MeshNodeHelloTests.hello(from: b, keyed: true, listing: [c.nodeID], packetID: 2), at: staleAt)
        stale.box.timer(at: staleAt)
        #expect(stale.box.counters.retriesArmedLate == 0)
        #expect(try MeshNodeMissingPiecesTests.drain(&stale.box, from: staleAt, until: .seconds(39)).isEmpty)
        #expect(stale.box.counters.firstHopRetries == 0)
        var off = try Self.sentBeforeTheWay(relay: b, to: c.nodeID) {
            MachineBox.exactRetries(&$0)
            $0.retriesArmedOnceTheWayIsKnown = false
        }
        off.box.hear(try MeshNodeHelloTests.hello(from: b, keyed: true, listing: [c.nodeID], packetID: 2), at: off.end + .milliseconds(400))
        off.box.timer(at: off.end + .milliseconds(400))
        #expect(try MeshNodeMissingPiecesTests.drain(&off.box, from: off.end + .milliseconds(400), until: .seconds(39)).isEmpty,
                "the rule before: the outbox's 30 s")
        #expect(off.box.counters.firstHopRetries == 0 && off.box.counters.retriesArmedLate == 0)
    }

    @Test("C's own hello comes only after A's message to C went: the quick retry is armed then, due when C's answer should have come plus the margin, to the nanosecond; an acknowledgement meanwhile leaves nothing to arm")
    func quickRetryArmedLate() throws {
        let b = BoxKeyPair(), c = BoxKeyPair()
        var (box, frame, end) = try Self.sentBeforeTheWay(relay: b, to: c.nodeID)
        let sentAt = end - frame.airtime
        let retryAt = sentAt + frame.airtime + MeshNodeMissingPiecesTests.turnaround + MeshNodeQuickRetryTests.ackAirtime
            + MeshNodeQuickRetryTests.margin
        box.hear(try MeshNodeHelloTests.hello(from: c, keyed: true, listing: [], packetID: 1), at: end + .milliseconds(300))
        box.timer(at: end + .milliseconds(300))
        #expect(box.counters.retriesArmedLate == 1)
        box.timer(at: retryAt - .nanoseconds(1))
        #expect(box.counters.quickRetries == 0)
        box.timer(at: retryAt)
        #expect(box.counters.quickRetries == 1)
        #expect(try MeshNodeQuickRetryTests.directedOut(&box, at: retryAt) == 1)

        // Acknowledged before the way was known: no retry is armed, none goes.
        var answered = try Self.sentBeforeTheWay(relay: b, to: c.nodeID)
        let id = try MeshFrameCodec.parse(answered.frame.bytes).header
        answered.box.hear(try MeshNodeLastHopRetryTests.ack(of: id.packetID, from: c.nodeID, to: id.origin), at: answered.end + .milliseconds(200))
        answered.box.hear(try MeshNodeHelloTests.hello(from: c, keyed: true, listing: [], packetID: 1), at: answered.end + .milliseconds(300))
        answered.box.timer(at: answered.end + .milliseconds(300))
        #expect(answered.box.counters.retriesArmedLate == 0)
        #expect(try MeshNodeMissingPiecesTests.drain(&answered.box, from: answered.end + .milliseconds(300), until: .seconds(39)).isEmpty)
    }
}
