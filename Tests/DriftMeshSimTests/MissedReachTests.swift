import DriftMeshSim
import Testing

/// `MissedReach`: why a flood missed a box it could reach, on a hand-made mesh.
@Suite struct MissedReachTests {
    @Test("each missed box is sorted by what the boxes it hears did; unreachable boxes are not counted")
    func sortsTheMisses() {
        // heard[s][r]: r hears s. 0 is the origin; 0, 1 and 2 hold the packet, 0 and 1 sent it.
        var heard = Array(repeating: Array(repeating: false, count: 10), count: 10)
        func link(_ s: Int, _ r: Int, both: Bool = true) {
            heard[s][r] = true
            if both { heard[r][s] = true }
        }
        link(0, 1); link(0, 2)
        link(1, 3)                   // 3 hears 1, which sent it: its copy was lost
        link(2, 4, both: false)      // 4 hears 2 one way and reaches only 5: 2 can never learn of 4
        link(4, 5)                   // 5 hears only 4, which never had it
        link(2, 6)                   // 6 and 2 hear each other: 2 could have known, and did not send
        link(1, 7, both: false)      // nobody hears 7
        link(6, 8)                   // 8 hears only 6, which never had it
        heard[9][0] = true           // 9 is heard by 0 but hears nobody: not reachable, not counted
        var missed = MissedReach()
        missed.count(heard: heard, origin: 0, held: [1, 2], senders: [0, 1])
        #expect(missed.copyLost == 1)
        #expect(missed.holderCannotKnow == 1)
        #expect(missed.holderDidNotSend == 1)
        #expect(missed.heardByNobody == 1)
        #expect(missed.upstreamMissed == 2)
        let share = missed.share(of: 9)
        #expect(abs(share.total - 6.0 / 9) < 1e-12)
    }
}
