import DriftMesh
import Testing

/// Issue 19 candidate: the copy counter only while the channel is busy.
@Suite struct RouterBusyCounterTests {
    @Test func theCounterRuleWaitsForABusyChannel() {
        let a = NodeID(0xA0A0_A0A1), b = NodeID(0xB0B0_B0B2), c = NodeID(0xC0C0_C0C3), d = NodeID(0xD0D0_D0D4)
        func router(busy: Bool) -> MeshRouter {
            var config = MeshRouterConfiguration(helloPeriod: .seconds(60), helloJitter: .zero)
            config.neighbourLearningPeriod = .zero  // handed its whole table at once
            config.cancelAfterCopiesOnlyWhenBusy = true
            var r = MeshRouter(me: b, configuration: config, seed: 42)
            r.channelBusy = busy
            _ = r.due(now: .zero)
            for (n, list) in [(a, [b]), (c, [b]), (d, [a, b])] {
                _ = r.heardHello(from: n, payload: HelloPayload(publicKey: [UInt8](repeating: 7, count: 32), neighbours: list.map { .init(id: $0, bucket: 3) }),
                                 link: LinkQuality(rssi: -100, snr: 5), now: .zero)
            }
            return r
        }
        let h = MeshHeader(kind: .broadcast, origin: a, packetID: 9, hopStart: 3, expiresAtMinute: 100)
        // After A's copy and D's relay only C looks uncovered: two copies, one left.
        var quiet = router(busy: false)
        _ = quiet.heard(h, link: LinkQuality(rssi: -100, snr: 5), firstTime: true, now: .seconds(10))
        #expect(quiet.heard(h.relayed(by: d), link: LinkQuality(rssi: -100, snr: 5), firstTime: false, now: .seconds(11)).isEmpty)
        var busy = router(busy: true)
        _ = busy.heard(h, link: LinkQuality(rssi: -100, snr: 5), firstTime: true, now: .seconds(10))
        #expect(busy.heard(h.relayed(by: d), link: LinkQuality(rssi: -100, snr: 5), firstTime: false, now: .seconds(11)) == [.cancelled(h.key)])
    }
}
