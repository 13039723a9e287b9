import DriftMesh
import Foundation
import Testing

/// The retries of a directed message wait a random extra share of their wait
/// (`MeshNodeMachine.Settings.retryJitter`, `outboxRetryJitter`): two boxes hidden from each
/// other whose messages collided at the relay between them used to send again at the same
/// instants and collide at every retry. On a manual clock.
@Suite("Mesh node: retries drawn apart")
struct MeshNodeRetryJitterTests {
    /// A box on `seed`, started and drained, that heard `neighbour`'s hello at 1 s.
    static func box(seed: UInt64, hearing neighbour: BoxKeyPair,
                    configure: (inout MeshNodeMachine<InMemoryNodeMemory>.Settings) -> Void = { _ in }) throws -> MachineBox {
        var box = try MachineBox(seed: seed, configure: configure)
        box.timer(at: .zero)
        while box.radioIdle(at: .zero).frame != nil {}
        let hello = MeshHeader(kind: .hello, origin: neighbour.nodeID, packetID: 1, hopStart: 0,
                               expiresAtMinute: MeshHeader.expiryMinute(now: MachineBox.epoch, lifetime: 600))
        box.hear(try MeshNodeQuickRetryTests.sealer.seal(header: hello, plaintext: HelloPayload(publicKey: neighbour.publicKeyBytes, neighbours: []).encoded()),
                 at: .seconds(1))
        return box
    }

    /// When the quick retry of a message to a neighbour that never answers goes, after the
    /// frame went on the air: the timer run at each instant the machine asks for.
    static func quickRetryWait(seed: UInt64, configure: (inout MeshNodeMachine<InMemoryNodeMemory>.Settings) -> Void = { _ in }) throws -> Duration? {
        let neighbour = BoxKeyPair()
        var box = try Self.box(seed: seed, hearing: neighbour, configure: configure)
        let (sentAt, _) = try MeshNodeQuickRetryTests.send(&box, to: neighbour.nodeID)
        var t = sentAt
        while t < .seconds(40) {
            let wake = box.timer(at: t)
            if box.counters.quickRetries == 1 { return t - sentAt }
            t = max(wake, t + .nanoseconds(1))
        }
        return nil
    }

    @Test("the quick retry waits its wait plus up to half of it, drawn for each box: boxes on other seeds go at other instants; without the extra, all at the one")
    func quickRetryDrawnApart() throws {
        let exact = try #require(try Self.quickRetryWait(seed: 1, configure: MachineBox.exactRetries))
        var waits: Set<Duration> = []
        for seed in UInt64(1)...8 {
            let wait = try #require(try Self.quickRetryWait(seed: seed), "seed \(seed): no quick retry")
            #expect(wait >= exact && wait <= exact + exact / 2, "seed \(seed): \(wait) against \(exact)")
            waits.insert(wait)
            #expect(try Self.quickRetryWait(seed: seed, configure: MachineBox.exactRetries) == exact)
        }
        #expect(waits.count == 8, "\(waits)")
        // Spread over the half: two boxes whose frames collided rarely collide again (their
        // draws must land within a frame's airtime of each other).
        #expect(waits.max()! - waits.min()! > exact / 5, "\(waits.sorted())")
    }

    @Test("the outbox's next attempt: the schedule's 30 s plus up to a quarter of it, drawn for each box")
    func outboxDrawnApart() throws {
        var due: Set<Date> = []
        for seed in UInt64(1)...8 {
            var box = try MachineBox(seed: seed)
            let receipt = try box.send("are you there", to: BoxKeyPair().nodeID, at: .zero)
            box.timer(at: .zero)
            while box.radioIdle(at: .zero).frame != nil {}
            let id = PacketKey(origin: box.me, packetID: receipt.packetID)
            let next = try #require(box.machine.memory.outbox[id]?.nextAttemptAt)
            #expect(next >= MachineBox.epoch.addingTimeInterval(30) && next <= MachineBox.epoch.addingTimeInterval(37.5), "seed \(seed): \(next)")
            due.insert(next)
        }
        #expect(due.count == 8, "\(due)")
    }
}
