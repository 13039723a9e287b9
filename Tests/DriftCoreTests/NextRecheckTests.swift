import DriftCore
import Foundation
import Testing

/// The next-deadline computation the bottle processor sleeps on (``BottleEvaluation/nextRecheck``),
/// for every condition kind: what it says, and — the property that matters — that no outcome
/// changes before it when no input arrives.
@Suite("Next recheck: every condition kind says when it may next change by time alone, and nothing changes sooner")
struct NextRecheckTests {
    static let nowISO = "2024-06-01T12:00:00Z"   // a Saturday, 14:00 in Berlin
    var now: Date { Fixtures.date(Self.nowISO) }

    /// The outcome's case, without its reason (reasons carry relative times like "opens in 5 min").
    static func shape(_ outcome: ConditionOutcome) -> String {
        switch outcome {
        case .satisfied: "satisfied"
        case .notSatisfied: "not satisfied"
        case .unknown: "unknown"
        }
    }

    /// Evaluates `bottle` at `now` in `context`, then at instants spread up to just before its next
    /// recheck (or over two days when there is none) with the inputs unchanged: every report keeps
    /// its outcome. Returns the next recheck.
    @discardableResult
    func stableUntilRecheck(_ bottle: Bottle, _ context: AmbientContext, sourceLocation: SourceLocation = #_sourceLocation) -> Date? {
        let first = ConditionEvaluator.evaluate(bottle, in: context)
        let recheck = first.nextRecheck
        if let recheck { #expect(recheck > context.now, "a recheck lies ahead", sourceLocation: sourceLocation) }
        let horizon = (recheck ?? context.now.addingTimeInterval(2 * 86_400)).timeIntervalSince(context.now)
        for step in 1...200 {
            var later = context
            later.now = context.now.addingTimeInterval(horizon * Double(step) / 200 - (step == 200 ? 0.001 : 0))
            let again = ConditionEvaluator.evaluate(bottle, in: later)
            #expect(again.reports.map { Self.shape($0.outcome) } == first.reports.map { Self.shape($0.outcome) },
                    "no change at \(later.now) before the recheck \(String(describing: recheck))", sourceLocation: sourceLocation)
        }
        return recheck
    }

    @Test("time of day, days of week, date range, delay and expiry: the recheck is the next edge (changesAt)")
    func timeKinds() throws {
        let context = Fixtures.context(Self.nowISO)
        let window = try Fixtures.bottle([BottleCondition(.timeOfDay(TimeOfDayWindow(start: (22, 0), end: (4, 0))))])
        #expect(stableUntilRecheck(window, context) == Fixtures.date("2024-06-01T20:00:00Z"))
        let weekend = try Fixtures.bottle([BottleCondition(.daysOfWeek([.saturday, .sunday]))])
        #expect(stableUntilRecheck(weekend, context) == Fixtures.date("2024-06-02T22:00:00Z"))
        let range = try Fixtures.bottle([BottleCondition(.dateRange(DateRange(from: try LocalDate(iso: "2024-06-03"))))])
        #expect(stableUntilRecheck(range, context) == Fixtures.date("2024-06-02T22:00:00Z"))
        let delayed = try Fixtures.bottle([BottleCondition(.delay(UnlockDelay(seconds: 3 * 3600)))])
        #expect(stableUntilRecheck(delayed, context) == Fixtures.date("2024-06-01T13:00:00Z"))
        // No condition but expiry: the bottle's end (created 10:00, lives a day).
        let plain = try Fixtures.bottle(lifetime: 86_400)
        #expect(stableUntilRecheck(plain, context) == Fixtures.date("2024-06-02T10:00:00Z"))
    }

    @Test("sun phases: the recheck is the next phase edge that flips the condition")
    func solar() throws {
        let context = Fixtures.context(Self.nowISO)
        let night = try Fixtures.bottle([BottleCondition(.solar([.night]))])
        let recheck = try #require(stableUntilRecheck(night, context))
        // Berlin in June: civil dusk ends late in the evening.
        #expect(recheck > Fixtures.date("2024-06-01T19:30:00Z") && recheck < Fixtures.date("2024-06-01T21:00:00Z"))
    }

    @Test("sensor levels and the pressure trend: the recheck is when the reading they rest on goes stale")
    func weatherLevels() throws {
        var context = Fixtures.context(Self.nowISO)
        let reading = SensorReading(time: now.addingTimeInterval(-120), value: 12)
        context.weather = WeatherSnapshot(temperature: SensorSeries([reading]),
                                          pressure: SensorSeries((0...14).map { SensorReading(time: now.addingTimeInterval(Double(-$0) * 900), value: 1000 + Double($0)) }))
        let cool = try Fixtures.bottle([BottleCondition(.weather(.temperature(ValueRange(maximum: 15))))])
        #expect(stableUntilRecheck(cool, context) == reading.time.addingTimeInterval(context.limits.maximumReadingAge))
        let falling = try Fixtures.bottle([BottleCondition(.weather(.pressureTrend(PressureTrendCondition(trend: .falling, hours: 3))))])
        #expect(ConditionEvaluator.evaluate(falling, in: context).reports[0].outcome.isSatisfied)
        #expect(stableUntilRecheck(falling, context) == now.addingTimeInterval(context.limits.maximumReadingAge))
        // A stale reading is unknown and stays so until a new reading (an input) comes.
        context.weather = WeatherSnapshot(temperature: SensorSeries([SensorReading(time: now.addingTimeInterval(-3600), value: 12)]))
        let stale = ConditionEvaluator.evaluate(cool, in: context)
        #expect(stale.reports[0].recheckAt == nil && stale.reports[0].changesAt == nil)
    }

    @Test("rain: held until the oldest tip in the window leaves it; a gauge still listening is rechecked when it has listened long enough")
    func rain() throws {
        var context = Fixtures.context(Self.nowISO)
        let tips = [now.addingTimeInterval(-50 * 60), now.addingTimeInterval(-20 * 60)]
        context.weather = WeatherSnapshot(rainGauge: RainGaugeHistory(listeningSince: now.addingTimeInterval(-5 * 3600), tips: tips))
        let wet = try Fixtures.bottle([BottleCondition(.weather(.rain(RainCondition(withinMinutes: 60, minimumMillimetres: 0.5))))])
        #expect(ConditionEvaluator.evaluate(wet, in: context).reports[0].outcome.isSatisfied)
        #expect(stableUntilRecheck(wet, context) == tips[0].addingTimeInterval(3600))

        context.weather = WeatherSnapshot(rainGauge: RainGaugeHistory(listeningSince: now.addingTimeInterval(-10 * 60), tips: []))
        #expect(stableUntilRecheck(wet, context) == now.addingTimeInterval(50 * 60))
    }

    @Test("box position and distance from origin: the recheck is when the fix stops counting; a bottle dropped here needs none")
    func position() throws {
        let context = Fixtures.context(Self.nowISO)   // a 3D fix 5 s old
        let fixStale = now.addingTimeInterval(-5 + context.limits.maximumFixAge)
        let near = try Fixtures.bottle([BottleCondition(.boxPosition(BoxPositionCondition(center: Fixtures.berlin, radiusMeters: 100)))])
        #expect(stableUntilRecheck(near, context) == fixStale)
        let elsewhere = BottleOrigin(boxID: Fixtures.otherBox, position: Fixtures.berlin.destination(meters: 3_000, bearingDegrees: 0),
                                     countryCode: try CountryCode("DE"))
        let travelled = try Fixtures.bottle([BottleCondition(.distanceFromOrigin(DistanceFromOriginCondition(maximumKilometres: 5)))],
                                            origin: elsewhere)
        #expect(stableUntilRecheck(travelled, context) == fixStale)
        let dropHere = try Fixtures.bottle([BottleCondition(.distanceFromOrigin(DistanceFromOriginCondition(maximumKilometres: 5)))])
        #expect(ConditionEvaluator.evaluate(dropHere, in: context).reports[0].recheckAt == nil)
    }

    @Test("password, presence and one-shot never change by time; an unsynchronised clock waits for the clock (an input)")
    func inputOnly() throws {
        let proofs = try Fixtures.bottle([BottleCondition(.password(Fixtures.hasher.hash("river"))),
                                          BottleCondition(.presence(PresenceCondition(withinSeconds: 60)))], oneShot: true)
        let evaluation = ConditionEvaluator.evaluate(proofs, in: Fixtures.context(Self.nowISO))
        #expect(evaluation.reports.dropLast().allSatisfy { $0.changesAt == nil && $0.recheckAt == nil })
        #expect(evaluation.nextRecheck == proofs.expiresAt)
        let unset = ConditionEvaluator.evaluate(try Fixtures.bottle([BottleCondition(.delay(UnlockDelay(seconds: 60)))]),
                                                in: Fixtures.context(Self.nowISO, synchronized: false))
        #expect(unset.nextRecheck == nil)
    }
}
