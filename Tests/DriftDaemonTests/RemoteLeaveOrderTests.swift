import DriftCore
import DriftMesh
import Foundation
import Testing

@testable import DriftDaemon

/// Store-and-forward retries reorder a remote visitor's words: a join lost once and retried
/// can reach the host after the same visitor's leave. It must not bring them back in.
@Suite("Remote chat: a word sent before a leave that arrives after it")
struct RemoteLeaveOrderTests {
    static let bottle = BottlesFixtures.bottleID(3)
    static let bob = ParticipantID(visitor: BottlesFixtures.alice, bottle: bottle, secret: BottlesFixtures.secret)
    static let boxA = NodeID(0x28DA_A526)
    static let boxB = NodeID(0x1BB7_3B5C)

    @Test("a join or line sent before the leave is stale; one sent after it (a rejoin) is not; another box's words are its own")
    func staleAfterLeave() {
        let state = MeshBottleState()
        // Join 400 and line 401 sent, leave 403 sent; 401 and 403 arrive, 400 is retried later.
        #expect(state.remoteHeard(Self.bob, in: Self.bottle, from: Self.boxA, at: Date()))
        state.recordLeave(Self.bob, in: Self.bottle, from: Self.boxA, packetID: 403)
        #expect(state.remoteLeft(Self.bob, in: Self.bottle, from: Self.boxA))
        #expect(state.sentBeforeLeave(Self.bob, in: Self.bottle, from: Self.boxA, packetID: 400), "the late join")
        #expect(state.sentBeforeLeave(Self.bob, in: Self.bottle, from: Self.boxA, packetID: 401), "the late line")
        #expect(!state.sentBeforeLeave(Self.bob, in: Self.bottle, from: Self.boxA, packetID: 404), "a rejoin after the leave")
        #expect(!state.sentBeforeLeave(Self.bob, in: Self.bottle, from: Self.boxB, packetID: 400), "the same pseudonym through another box")
        // An older leave arriving late does not move the mark back.
        state.recordLeave(Self.bob, in: Self.bottle, from: Self.boxA, packetID: 390)
        #expect(state.sentBeforeLeave(Self.bob, in: Self.bottle, from: Self.boxA, packetID: 402))
        // The bottle's end forgets it all.
        state.forget(Self.bottle)
        #expect(!state.sentBeforeLeave(Self.bob, in: Self.bottle, from: Self.boxA, packetID: 400))
    }

    @Test("packet ids compare across the counter's wrap (serial-number order)")
    func wrap() {
        #expect(MeshBottleState.isNewer(5, than: UInt32.max - 3), "1 follows UInt32.max after the wrap")
        #expect(!MeshBottleState.isNewer(UInt32.max - 3, than: 5))
        #expect(MeshBottleState.isNewer(404, than: 403))
        #expect(!MeshBottleState.isNewer(403, than: 403))
        let state = MeshBottleState()
        state.recordLeave(Self.bob, in: Self.bottle, from: Self.boxA, packetID: 2)
        #expect(state.sentBeforeLeave(Self.bob, in: Self.bottle, from: Self.boxA, packetID: UInt32.max - 1), "sent just before the wrap")
    }
}
