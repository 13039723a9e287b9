import DriftMesh
import Testing

/// Which frames wait 1…8 slots when they come ready as the channel turns quiet
/// (``QuietBackOff``, the daemon's listen before talk and the simulator's).
struct QuietBackOffTests {
    static let me = NodeID(rawValue: 0x0A0B_0C01), other = NodeID(rawValue: 0x0D0E_0F02)

    @Test("a box's own frames wait as the channel turns quiet; its relays of another box's data keep their slot")
    func ownFramesWaitRelaysKeepTheirSlot() {
        for kind in FrameKind.allCases {
            let own = MeshHeader(kind: kind, origin: Self.me, packetID: 1, hopStart: 3, expiresAtMinute: 100)
            #expect(QuietBackOff.applies(to: own, me: Self.me), "own \(kind)")
            var relayed = MeshHeader(kind: kind, origin: Self.other, packetID: 1, hopStart: 3, expiresAtMinute: 100)
            relayed.hopsTaken = 1
            let data = kind == .broadcast || kind == .directed || kind == .ack
            #expect(QuietBackOff.applies(to: relayed, me: Self.me) == !data, "\(kind) of another box")
            #expect(relayed.isRelayedData(by: Self.me) == data)
            #expect(!relayed.isRelayedData(by: Self.other), "the origin's own copy")
        }
        #expect(QuietBackOff.applies(to: nil, me: Self.me), "a frame that does not parse waits")
    }
}
