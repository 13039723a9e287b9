import DriftCore
import Foundation
import Testing

@Suite struct SolarConditionTests {
    func report(_ phases: Set<SolarPhase>, at iso: String, context adjust: (inout AmbientContext) -> Void = { _ in }) throws -> ConditionReport {
        let bottle = try Fixtures.bottle([BottleCondition(.solar(phases))])
        var context = Fixtures.context(iso)
        adjust(&context)
        return ConditionEvaluator.report(for: bottle.conditions[0], of: bottle, in: context)
    }

    @Test func nightWindowAtTheBox() throws {
        // Berlin, 2024-06-01: sunset ≈ 19:20Z, civil dusk ≈ 20:10Z, civil dawn ≈ 01:55Z.
        let midnight = try report([.night], at: "2024-06-01T22:00:00Z")
        #expect(midnight.outcome.isSatisfied)
        #expect(midnight.summary == "opens at night")
        let changes = try #require(midnight.changesAt)
        #expect(changes > Fixtures.date("2024-06-02T01:30:00Z") && changes < Fixtures.date("2024-06-02T02:30:00Z"))

        let noon = try report([.night], at: "2024-06-01T11:00:00Z")
        guard case .notSatisfied(let reason) = noon.outcome else {
            Issue.record("expected not satisfied, got \(noon.outcome)")
            return
        }
        #expect(reason.hasPrefix("the sun is up; opens at 22:"), "\(reason)") // civil dusk ≈ 22:10 local
    }

    @Test func twilightPhases() throws {
        #expect(try report([.civilDusk], at: "2024-06-01T19:40:00Z").outcome.isSatisfied)
        #expect(try report([.civilDawn], at: "2024-06-02T02:30:00Z").outcome.isSatisfied)
        #expect(try report([.civilDawn, .civilDusk], at: "2024-06-01T19:40:00Z").outcome.isSatisfied)
        let dusk = try report([.day], at: "2024-06-01T19:40:00Z")
        #expect(dusk.outcome.reason?.hasPrefix("it is civil dusk") == true)
    }

    @Test func unknownWithoutAnyPosition() throws {
        let result = try report([.day], at: "2024-06-01T12:00:00Z") { context in
            context.gps = .absent
            context.configuredPosition = nil
        }
        #expect(result.outcome == .unknown(reason: "the box's position is unknown (no GPS fix yet and none configured)"))
    }

    @Test func configuredPositionAndOldFixesStillServeTheSun() throws {
        let configured = try report([.day], at: "2024-06-01T12:00:00Z") { context in
            context.gps = .absent
            context.configuredPosition = Fixtures.berlin
        }
        #expect(configured.outcome.isSatisfied)
        let oldFix = try report([.day], at: "2024-06-01T12:00:00Z") { context in
            context.gps.lastFix?.time = context.now.addingTimeInterval(-86_400 * 3)
        }
        #expect(oldFix.outcome.isSatisfied)
    }

    @Test func polarDayNeverGetsDark() throws {
        let tromso = try GeoPoint(latitude: 69.6492, longitude: 18.9553)
        let result = try report([.night], at: "2024-06-21T22:30:00Z") { context in
            context.gps.lastFix?.position = tromso
        }
        #expect(result.outcome == .notSatisfied(reason: "polar day: the sun does not set today"))
        #expect(result.changesAt == nil)
        let polarNight = try report([.day], at: "2024-12-21T11:00:00Z") { context in
            context.gps.lastFix?.position = try! GeoPoint(latitude: 78.2232, longitude: 15.6267)
        }
        #expect(polarNight.outcome.reason?.hasPrefix("polar night: the sun does not rise today") == true)
    }

    @Test func emptyPhaseSetIsInvalid() {
        #expect(throws: DomainValidationError.self) { try Condition.solar([]).validate() }
    }
}
