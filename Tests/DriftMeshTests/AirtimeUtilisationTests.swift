import DriftMesh
import Testing

@Suite("Channel utilisation over sliding windows")
struct AirtimeUtilisationTests {
    @Test("Busy = own transmissions + receptions over the window; air_util_tx counts only our own")
    func math() {
        var u = ChannelUtilisation()
        u.recordTransmission(airtime: .seconds(6), at: .zero)             // 0–6 s
        u.recordReception(airtime: .seconds(6), endingAt: .seconds(20))   // 14–20 s
        #expect(u.busyFraction(over: .seconds(60), now: .seconds(60)) == 0.2)
        #expect(u.transmitFraction(over: .seconds(60), now: .seconds(60)) == 0.1)
        // Slide by 10 s: the transmission has left the one-minute window.
        #expect(u.busyFraction(over: .seconds(60), now: .seconds(70)) == 0.1)
        #expect(u.transmitFraction(over: .seconds(60), now: .seconds(70)) == 0)
        // Over ten minutes it still counts.
        #expect(u.busyFraction(over: .seconds(600), now: .seconds(70)) == 0.02)
        let summary = u.summary(now: .seconds(60))
        #expect(summary.channelUtilisationPercent == 20)
        #expect(abs(summary.airUtilTxPercent - 6.0 / 36.0) < 1e-9)
    }

    @Test("Overlapping busy intervals are merged, so the fraction never exceeds 1")
    func overlap() {
        var u = ChannelUtilisation()
        u.recordReception(airtime: .seconds(40), endingAt: .seconds(50))  // 10–50
        u.recordReception(airtime: .seconds(40), endingAt: .seconds(60))  // 20–60
        u.recordTransmission(airtime: .seconds(30), at: .seconds(5))       // 5–35
        #expect(u.busyFraction(over: .seconds(60), now: .seconds(60)) == 55.0 / 60.0)
        u.recordReception(airtime: .seconds(120), endingAt: .seconds(60))
        #expect(u.busyFraction(over: .seconds(60), now: .seconds(60)) == 1)
    }

    @Test("A transmission still on air counts only up to now; intervals older than the horizon are forgotten")
    func edges() {
        var u = ChannelUtilisation(horizon: .seconds(600))
        u.recordTransmission(airtime: .seconds(10), at: .seconds(55))
        #expect(u.busyFraction(over: .seconds(60), now: .seconds(60)) == 5.0 / 60.0)
        u.recordTransmission(airtime: .seconds(1), at: .seconds(10_000))
        #expect(u.busyFraction(over: .seconds(600), now: .seconds(10_001)) == 1.0 / 600.0)
        // A window beyond the horizon is capped at it.
        #expect(u.busyFraction(over: .seconds(3600), now: .seconds(10_001)) == 1.0 / 600.0)
        #expect(ChannelUtilisation().busyFraction(over: .seconds(60), now: .zero) == 0)
    }
}
