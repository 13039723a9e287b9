import DriftCore
import Foundation
import Testing

/// Time-of-day, days of week, date range, delay and expiry.
@Suite struct TimeConditionTests {
    func report(_ condition: Condition, at iso: String, synchronized: Bool = true, hint: String? = nil) throws -> ConditionReport {
        let bottle = try Fixtures.bottle([BottleCondition(condition, hint: hint)])
        return ConditionEvaluator.report(for: bottle.conditions[0], of: bottle, in: Fixtures.context(iso, synchronized: synchronized))
    }

    // Berlin is UTC+2 in June: 20:00Z = 22:00 local.
    static let night = Condition.timeOfDay(TimeOfDayWindow(start: (22, 0), end: (4, 0)))

    @Test(arguments: [
        ("2024-06-01T20:00:00Z", true),   // 22:00 start, inclusive
        ("2024-06-01T21:30:00Z", true),   // 23:30
        ("2024-06-01T22:30:00Z", true),   // 00:30 after midnight
        ("2024-06-02T01:59:00Z", true),   // 03:59
        ("2024-06-02T02:00:00Z", false),  // 04:00 end, exclusive
        ("2024-06-01T12:05:00Z", false),  // 14:05
        ("2024-06-01T19:59:00Z", false),  // 21:59
    ])
    func windowCrossingMidnight(iso: String, open: Bool) throws {
        let result = try report(Self.night, at: iso)
        #expect(result.outcome.isSatisfied == open)
        #expect(result.summary == "opens between 22:00 and 04:00 (Europe/Berlin)")
    }

    @Test func timeOfDayReasonsAndTimer() throws {
        let closed = try report(Self.night, at: "2024-06-01T12:05:00Z", hint: "bring a torch")
        #expect(closed.outcome == .notSatisfied(reason: "it is 14:05 (Europe/Berlin); opens at 22:00"))
        #expect(closed.hint == "bring a torch")
        #expect(closed.changesAt == Fixtures.date("2024-06-01T20:00:00Z"))
        let open = try report(Self.night, at: "2024-06-01T21:30:00Z")
        #expect(open.changesAt == Fixtures.date("2024-06-02T02:00:00Z"))
        let plain = try report(.timeOfDay(TimeOfDayWindow(start: (9, 0), end: (17, 30))), at: "2024-06-01T10:00:00Z")
        #expect(plain.outcome.isSatisfied)
    }

    @Test func unsynchronisedClockMakesTimeConditionsUnknown() throws {
        let conditions: [Condition] = [
            Self.night, .daysOfWeek([.saturday]), .dateRange(DateRange(from: try LocalDate(iso: "2024-01-01"))),
            .delay(UnlockDelay(seconds: 60)),
        ]
        for condition in conditions {
            let result = try report(condition, at: "2024-06-01T21:30:00Z", synchronized: false)
            #expect(result.outcome == .unknown(reason: "the box clock is not set yet (waiting for GPS or network time)"), "\(condition)")
        }
        let bottle = try Fixtures.bottle()
        let evaluation = ConditionEvaluator.evaluate(bottle, in: Fixtures.context("2024-06-01T21:30:00Z", synchronized: false))
        #expect(evaluation.reports.last?.kind == .expiry)
        #expect(evaluation.reports.last?.outcome.isSatisfied == false)
        #expect(!evaluation.isOpenable)
    }

    @Test func invalidWindowsAreRejected() {
        #expect(throws: DomainValidationError.self) { try Condition.timeOfDay(TimeOfDayWindow(startMinute: 600, endMinute: 600)).validate() }
        #expect(throws: DomainValidationError.self) { try Condition.timeOfDay(TimeOfDayWindow(startMinute: -1, endMinute: 600)).validate() }
        #expect(throws: DomainValidationError.self) { try Condition.timeOfDay(TimeOfDayWindow(startMinute: 0, endMinute: 1440)).validate() }
    }

    @Test func daysOfWeekUseTheBoxTimeZone() throws {
        let weekend = Condition.daysOfWeek([.saturday, .sunday])
        // 2024-06-01 is a Saturday.
        let saturday = try report(weekend, at: "2024-06-01T12:00:00Z")
        #expect(saturday.outcome.isSatisfied)
        #expect(saturday.summary == "opens on Sat, Sun")
        #expect(saturday.changesAt == Fixtures.date("2024-06-02T22:00:00Z")) // Monday 00:00 Berlin
        let wednesday = try report(weekend, at: "2024-06-05T12:00:00Z")
        #expect(wednesday.outcome == .notSatisfied(reason: "today is Wednesday"))
        #expect(wednesday.changesAt == Fixtures.date("2024-06-07T22:00:00Z")) // Saturday 00:00 Berlin
        // Friday 23:30 UTC is already Saturday 01:30 in Berlin.
        #expect(try report(weekend, at: "2024-05-31T23:30:00Z").outcome.isSatisfied)
        #expect(throws: DomainValidationError.self) { try Condition.daysOfWeek([]).validate() }
    }

    @Test func dateRangeIsInclusiveInTheBoxTimeZone() throws {
        let range = Condition.dateRange(DateRange(from: try LocalDate(iso: "2024-06-10"), through: try LocalDate(iso: "2024-06-12")))
        let before = try report(range, at: "2024-06-09T21:59:00Z") // 23:59 on the 9th in Berlin
        #expect(before.outcome == .notSatisfied(reason: "opens on 2024-06-10"))
        #expect(before.changesAt == Fixtures.date("2024-06-09T22:00:00Z"))
        #expect(try report(range, at: "2024-06-09T22:00:00Z").outcome.isSatisfied) // 00:00 on the 10th
        let last = try report(range, at: "2024-06-12T21:59:00Z")
        #expect(last.outcome.isSatisfied)
        #expect(last.changesAt == Fixtures.date("2024-06-12T22:00:00Z"))
        #expect(try report(range, at: "2024-06-12T22:00:00Z").outcome == .notSatisfied(reason: "closed after 2024-06-12"))
        #expect(try report(.dateRange(DateRange(through: try LocalDate(iso: "2024-06-12"))), at: "2024-06-01T10:00:00Z").outcome.isSatisfied)
        #expect(throws: DomainValidationError.self) { try Condition.dateRange(DateRange()).validate() }
        #expect(throws: DomainValidationError.self) {
            try Condition.dateRange(DateRange(from: try LocalDate(iso: "2024-06-12"), through: try LocalDate(iso: "2024-06-10"))).validate()
        }
        #expect(throws: DomainValidationError.self) { try LocalDate(iso: "2023-02-29") }
        #expect(try LocalDate(iso: "2024-02-29").description == "2024-02-29")
    }

    @Test func delayCountsFromCreation() throws {
        // The fixture bottle is created at 10:00Z.
        let delay = Condition.delay(UnlockDelay(seconds: 7_200))
        let early = try report(delay, at: "2024-06-01T10:47:00Z")
        #expect(early.outcome == .notSatisfied(reason: "opens in 1 h 13 min"))
        #expect(early.changesAt == Fixtures.date("2024-06-01T12:00:00Z"))
        #expect(try report(delay, at: "2024-06-01T12:00:00Z").outcome.isSatisfied)
        #expect(early.summary == "opens 2 h after it was dropped")
        #expect(throws: DomainValidationError.self) { try Condition.delay(UnlockDelay(seconds: 0)).validate() }
    }

    @Test func expiryIsReportedForEveryBottle() throws {
        let bottle = try Fixtures.bottle(lifetime: 3_600)
        let before = ConditionEvaluator.evaluate(bottle, in: Fixtures.context("2024-06-01T10:59:59Z"))
        #expect(before.reports.map(\.kind) == [.expiry])
        #expect(before.isOpenable)
        #expect(before.nextChange == Fixtures.date("2024-06-01T11:00:00Z"))
        #expect(before.reports[0].summary == "expires 2024-06-01 13:00 (Europe/Berlin)")
        let after = ConditionEvaluator.evaluate(bottle, in: Fixtures.context("2024-06-01T11:05:00Z"))
        #expect(after.reports[0].outcome == .notSatisfied(reason: "expired 5 min ago"))
        #expect(!after.isOpenable)
        #expect(after.blockingReasons == ["expired 5 min ago"])
    }
}
