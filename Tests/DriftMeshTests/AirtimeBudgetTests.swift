import DriftMesh
import TestSupport
import Testing

@Suite("Airtime budget over a sliding hour")
struct AirtimeBudgetTests {
    static let euFrames: [(Double, Int, Int)] = [(869.525, 643, 579), (868.3, 64, 57), (868.95, 6, 5)]

    @Test("43-byte LongFast frames per hour in the EU sub-bands (docs/airtime.md): 10 %, 1 %, 0.1 %; all / non-emergency",
          arguments: euFrames)
    func euFramesPerHour(frequency: Double, all: Int, nonEmergency: Int) throws {
        let policy = try DutyCyclePolicy.forChannel(region: .eu868, frequencyMHz: frequency, bandwidthHz: 250_000)
        let frame = LoRaAirtime.duration(payloadBytes: 43, modulation: .longFast)
        #expect(Self.fill(AirtimeBudget(policy: policy), frame: frame, emergency: true) == all)
        #expect(Self.fill(AirtimeBudget(policy: policy), frame: frame, emergency: false) == nonEmergency)
    }

    /// How many back-to-back frames fit from t = 0.
    static func fill(_ start: AirtimeBudget, frame: Duration, emergency: Bool) -> Int {
        var budget = start
        var now = Duration.zero
        var sent = 0
        while budget.canTransmit(airtime: frame, now: now, emergency: emergency) {
            budget.record(airtime: frame, at: now)
            now += frame
            sent += 1
        }
        return sent
    }

    @Test("The hour window slides: a full budget frees exactly one hour after the airtime was spent")
    func windowSlides() {
        var budget = AirtimeBudget(limit: .seconds(36), reserveFraction: 0)
        budget.record(airtime: .seconds(36), at: .zero)
        #expect(budget.used(now: .seconds(100)) == .seconds(36))
        #expect(budget.remaining(now: .seconds(100)) == .zero)
        #expect(!budget.canTransmit(airtime: .seconds(1), now: .seconds(100)))
        // 1 s frees when the window's start passes 1 s into the 36 s transmission.
        #expect(budget.earliestStart(airtime: .seconds(1), now: .seconds(100)) == .seconds(3601))
        #expect(!budget.canTransmit(airtime: .seconds(1), now: .milliseconds(3_600_999)))
        #expect(budget.canTransmit(airtime: .seconds(1), now: .seconds(3601)))
        #expect(budget.used(now: .seconds(3618)) == .seconds(18))
        #expect(budget.usedFraction(now: .seconds(3618)) == 0.5)
        #expect(budget.used(now: .seconds(3636)) == .zero)
    }

    @Test("Several old transmissions age out one after another")
    func agingOut() {
        var budget = AirtimeBudget(limit: .seconds(10), reserveFraction: 0)
        for i in 0..<5 { budget.record(airtime: .seconds(2), at: .seconds(i * 100)) }
        // Full; 3 s needs the first (0–2 s) and half of the second (100–102 s) to age out.
        #expect(budget.earliestStart(airtime: .seconds(3), now: .seconds(1000)) == .seconds(3701))
    }

    @Test("The reserve: normal traffic stops at 90 %, emergency may use the last 10 %")
    func reserve() {
        var budget = AirtimeBudget(limit: .seconds(100), reserveFraction: 0.1)
        #expect(budget.allowance(emergency: false) == .seconds(90))
        budget.record(airtime: .seconds(89), at: .zero)
        #expect(budget.canTransmit(airtime: .seconds(1), now: .seconds(200)))
        #expect(!budget.canTransmit(airtime: .seconds(2), now: .seconds(200)))
        #expect(budget.canTransmit(airtime: .seconds(2), now: .seconds(200), emergency: true))
        budget.record(airtime: .seconds(11), at: .seconds(200))
        #expect(!budget.canTransmit(airtime: .milliseconds(1), now: .seconds(300), emergency: true))
        #expect(budget.remaining(now: .seconds(300), emergency: true) == .zero)
        #expect(budget.refusal(airtime: .seconds(95)) == .exceedsBudget(airtime: .seconds(95), limit: .seconds(90)))
        #expect(budget.refusal(airtime: .seconds(95), emergency: true) == nil)
        #expect(budget.earliestStart(airtime: .seconds(101), now: .zero, emergency: true) == nil)
    }

    @Test("No duty cycle: always allowed, except beyond the dwell limit")
    func unlimited() {
        var budget = AirtimeBudget(limit: nil, maxDwell: .milliseconds(400))
        for i in 0..<1000 { budget.record(airtime: .milliseconds(399), at: .milliseconds(i * 400)) }
        #expect(budget.canTransmit(airtime: .milliseconds(400), now: .seconds(400)))
        #expect(!budget.canTransmit(airtime: .milliseconds(401), now: .seconds(400)))
        #expect(budget.earliestStart(airtime: .milliseconds(401), now: .seconds(400)) == nil)
        #expect(budget.remaining(now: .seconds(400)) == nil)
    }

    @Test("Property: random senders over simulated hours never exceed the budget in any one-hour window", arguments: [1, 2, 3, 4] as [UInt64])
    func neverExceeds(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let limit = Duration.seconds(36)
        var budget = AirtimeBudget(limit: limit, reserveFraction: 0.1)
        var sent: [(start: Duration, airtime: Duration, emergency: Bool)] = []
        var now = Duration.zero
        let end = Duration.seconds(6 * 3600)
        while now < end {
            now += .milliseconds(Int64.random(in: 0...40_000, using: &rng))
            let airtime = Duration.milliseconds(Int64.random(in: 20...3000, using: &rng))
            let emergency = Int.random(in: 0..<10, using: &rng) == 0
            // Sometimes jump straight to the promised instant, which must then be allowed.
            if Bool.random(using: &rng), let start = budget.earliestStart(airtime: airtime, now: now, emergency: emergency) {
                #expect(start >= now)
                #expect(budget.canTransmit(airtime: airtime, now: start, emergency: emergency))
                if start > now + .milliseconds(1) {
                    #expect(!budget.canTransmit(airtime: airtime, now: start - .milliseconds(1), emergency: emergency))
                }
                now = start
            }
            if budget.canTransmit(airtime: airtime, now: now, emergency: emergency) {
                budget.record(airtime: airtime, at: now)
                sent.append((now, airtime, emergency))
                now += airtime  // half-duplex radio: one transmission at a time
            }
        }
        #expect(sent.count > 100)
        // The worst window starts at some transmission's start or ends at some transmission's end.
        func load(_ from: Duration, _ to: Duration, emergencyToo: Bool) -> Duration {
            sent.reduce(.zero) { total, t in
                guard emergencyToo || !t.emergency else { return total }
                let overlap = min(t.start + t.airtime, to) - max(t.start, from)
                return overlap > .zero ? total + overlap : total
            }
        }
        var worst = Duration.zero
        for t in sent {
            let windows = [(t.start, t.start + .seconds(3600)), (t.start + t.airtime - .seconds(3600), t.start + t.airtime)]
            for (from, to) in windows {
                let total = load(from, to, emergencyToo: true)
                worst = max(worst, total)
                #expect(total <= limit, "window \(from)…\(to) holds \(total)")
            }
        }
        // And the budget is used, not just respected: some window gets near the limit.
        #expect(worst > limit * 0.85)
    }
}
