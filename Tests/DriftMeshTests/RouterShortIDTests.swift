import DriftMesh
import Testing

/// Relayer short ids are one byte of a random node id, so neighbours collide (review
/// finding 6). Coverage credit must then be neither withheld nor given wrongly.
@Suite struct RouterShortIDTests {
    static let a = NodeID(0xA0A0_A0A1)
    static let b = NodeID(0xB0B0_B0B2)
    static let c = NodeID(0xC0C0_C0C3)
    /// Two neighbours with the same short id (0x44).
    static let d1 = NodeID(0xD1D1_D144)
    static let d2 = NodeID(0xD2D2_D244)
    static let key = [UInt8](repeating: 7, count: 32)
    static let good = LinkQuality(rssi: -100, snr: 5)

    static func router(_ table: [NodeID: [NodeID]]) -> MeshRouter {
        var config = MeshRouterConfiguration(helloPeriod: .seconds(60), helloJitter: .zero)
        config.neighbourLearningPeriod = .zero  // handed its whole table at once
        config.cancelAfterCopies = 0  // coverage only: what is covered decides alone
        var r = MeshRouter(me: b, configuration: config, seed: 42)
        _ = r.due(now: .zero)
        for (n, list) in table.sorted(by: { $0.key < $1.key }) {
            let payload = HelloPayload(publicKey: key, neighbours: list.map { .init(id: $0, bucket: 3) })
            _ = r.heardHello(from: n, payload: payload, link: good, now: .zero)
        }
        return r
    }

    static func header(hops: UInt8, relayer: NodeID) -> MeshHeader {
        var h = MeshHeader(kind: .broadcast, origin: a, packetID: 9, hopStart: 3, expiresAtMinute: 100)
        for _ in 0..<hops { h = h.relayed(by: relayer) }
        return h
    }

    @Test func idsCollideAsAssumed() {
        #expect(Self.d1.shortID == Self.d2.shortID)
    }

    @Test func aCollidingNeighbourThatCannotHaveRelayedIsRuledOut() {
        // B hears A, C, D1, D2. Only D1 hears the origin A, so a hop-1 copy with short id
        // 0x44 is D1's: it covers C and D2, and B's planned relay is cancelled. (Before the
        // fix the ambiguity gave no credit at all and B relayed for nobody.)
        var r = Self.router([Self.a: [Self.b, Self.d1], Self.c: [Self.b, Self.d1], Self.d1: [Self.a, Self.b, Self.c], Self.d2: [Self.b, Self.d1]])
        let first = Self.header(hops: 0, relayer: Self.a)
        #expect(r.heard(first, link: Self.good, firstTime: true, now: .seconds(10)) == [.deliver(first.key)])
        let copy = Self.header(hops: 1, relayer: Self.d1)
        #expect(r.heard(copy, link: Self.good, firstTime: false, now: .seconds(10) + .milliseconds(5)) == [.cancelled(first.key)])
    }

    @Test func trulyAmbiguousCopiesCreditOnlyWhatEveryCandidateReaches() {
        // Both D1 and D2 hear A; D1 reaches C, D2 does not. A 0x44 copy may be D2's, so C
        // stays uncovered and B still relays.
        var r = Self.router([Self.a: [Self.b, Self.d1, Self.d2], Self.c: [Self.b, Self.d1], Self.d1: [Self.a, Self.b, Self.c], Self.d2: [Self.a, Self.b]])
        let first = Self.header(hops: 0, relayer: Self.a)
        _ = r.heard(first, link: Self.good, firstTime: true, now: .seconds(10))
        #expect(r.heard(Self.header(hops: 1, relayer: Self.d1), link: Self.good, firstTime: false, now: .seconds(10) + .milliseconds(5)).isEmpty)
        var sent: [RouterAction] = []
        while let t = r.nextDeadline, t <= .seconds(40) { sent += r.due(now: t).filter { $0 != .sendHello } }
        #expect(sent == [.transmit(first.relayed(by: Self.b))])
    }

    @Test func anUnknownTransmitterSharingAShortIDGetsNoCredit() {
        // B knows D1 (0x44, hellos at +5 dB SNR) but not D2. D2's copy arrives at −15 dB:
        // it cannot be D1's full-power frame, so C (which only D1 reaches) stays uncovered.
        // (Before the fix D1 was credited and B's needed relay was cancelled.)
        var r = Self.router([Self.a: [Self.b, Self.d1], Self.c: [Self.b, Self.d1], Self.d1: [Self.a, Self.b, Self.c]])
        let first = Self.header(hops: 0, relayer: Self.a)
        _ = r.heard(first, link: Self.good, firstTime: true, now: .seconds(10))
        let weak = LinkQuality(rssi: -125, snr: -15)
        #expect(r.heard(Self.header(hops: 2, relayer: Self.d2), link: weak, firstTime: false, now: .seconds(10) + .milliseconds(5)).isEmpty)
        // The same copy at D1's strength is credited to D1.
        var s = Self.router([Self.a: [Self.b, Self.d1], Self.c: [Self.b, Self.d1], Self.d1: [Self.a, Self.b, Self.c]])
        _ = s.heard(first, link: Self.good, firstTime: true, now: .seconds(10))
        #expect(s.heard(Self.header(hops: 2, relayer: Self.d1), link: Self.good, firstTime: false, now: .seconds(10) + .milliseconds(5)) == [.cancelled(first.key)])
    }
}
