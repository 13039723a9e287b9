import DriftCore
import Foundation
import Testing

@Suite struct PositionConditionTests {
    static let nowISO = "2024-06-01T12:00:00Z"
    var now: Date { Fixtures.date(Self.nowISO) }
    let near = BoxPositionCondition(center: Fixtures.berlin.destination(meters: 150, bearingDegrees: 90), radiusMeters: 200)

    func report(_ condition: Condition, bottle: Bottle? = nil, gps: GPSState? = nil, box: BoxID? = Fixtures.boxID) throws -> ConditionReport {
        let bottle = try bottle ?? Fixtures.bottle([BottleCondition(condition)])
        var context = Fixtures.context(Self.nowISO)
        if let gps { context.gps = gps }
        context.boxID = box
        let entry = bottle.conditions.first { $0.condition == condition } ?? BottleCondition(condition)
        return ConditionEvaluator.report(for: entry, of: bottle, in: context)
    }

    func fix(_ mode: PositionFix.Mode, hdop: Double?, ageSeconds: Double = 5, at point: GeoPoint = Fixtures.berlin) -> GPSState {
        GPSState(receiverPresent: true, listeningSince: now.addingTimeInterval(-7_200),
                 lastFix: PositionFix(position: point, mode: mode, hdop: hdop, time: now.addingTimeInterval(-ageSeconds)))
    }

    @Test func boxWithinRadiusWithGoodFix() throws {
        #expect(try report(.boxPosition(near)).outcome.isSatisfied)
        #expect(try report(.boxPosition(near), gps: fix(.twoD, hdop: 2.0)).outcome.isSatisfied)
        let far = BoxPositionCondition(center: Fixtures.berlin.destination(meters: 1_230, bearingDegrees: 0), radiusMeters: 200)
        let result = try report(.boxPosition(far))
        #expect(result.outcome == .notSatisfied(reason: "the box is 1.2 km away"))
        #expect(result.summary.hasPrefix("opens when the box is within 200 m of 52.53"))
    }

    @Test func poorMissingOrOldFixesAreUnknown() throws {
        #expect(try report(.boxPosition(near), gps: .absent).outcome == .unknown(reason: "this box has no GPS receiver"))
        let searching = GPSState(receiverPresent: true, listeningSince: now.addingTimeInterval(-720))
        #expect(try report(.boxPosition(near), gps: searching).outcome == .unknown(reason: "no GPS fix for 12 min"))
        #expect(try report(.boxPosition(near), gps: GPSState(receiverPresent: true)).outcome == .unknown(reason: "no GPS fix yet"))
        #expect(try report(.boxPosition(near), gps: fix(.threeD, hdop: 1, ageSeconds: 720)).outcome == .unknown(reason: "no GPS fix for 12 min"))
        #expect(try report(.boxPosition(near), gps: fix(.twoD, hdop: 7.2)).outcome
            == .unknown(reason: "GPS fix too weak (2D, HDOP 7.2; needs 3D or HDOP ≤ 5)"))
        #expect(try report(.boxPosition(near), gps: fix(.twoD, hdop: nil)).outcome
            == .unknown(reason: "GPS fix too weak (2D, no HDOP; needs 3D or HDOP ≤ 5)"))
        // A stale fix is unknown even when its position would satisfy the condition.
        #expect(try report(.boxPosition(near), gps: fix(.threeD, hdop: 1, ageSeconds: 601)).outcome.isSatisfied == false)
        #expect(try report(.boxPosition(near), gps: fix(.threeD, hdop: 1, ageSeconds: 600)).outcome.isSatisfied)
    }

    @Test func distanceFromOrigin() throws {
        let within10km = Condition.distanceFromOrigin(DistanceFromOriginCondition(maximumKilometres: 10))
        let paris = try GeoPoint(latitude: 48.8566, longitude: 2.3522)
        // Dropped at this very box: holds without a fix.
        #expect(try report(within10km, gps: .absent).outcome.isSatisfied)
        let travelled = try Fixtures.bottle([BottleCondition(within10km)],
                                            origin: BottleOrigin(boxID: Fixtures.otherBox, position: paris, countryCode: try CountryCode("FR")))
        let farAway = try report(within10km, bottle: travelled)
        guard case .notSatisfied(let reason) = farAway.outcome else {
            Issue.record("expected not satisfied, got \(farAway.outcome)")
            return
        }
        #expect(reason.hasPrefix("the box is 87") && reason.hasSuffix("km from where it was dropped"))
        let nearOrigin = try Fixtures.bottle([BottleCondition(within10km)],
                                             origin: BottleOrigin(boxID: Fixtures.otherBox, position: Fixtures.berlin.destination(meters: 9_000, bearingDegrees: 10), countryCode: nil))
        #expect(try report(within10km, bottle: nearOrigin).outcome.isSatisfied)
        #expect(try report(within10km, bottle: nearOrigin, gps: .absent).outcome == .unknown(reason: "this box has no GPS receiver"))
        let unknownOrigin = try Fixtures.bottle([BottleCondition(within10km)],
                                                origin: BottleOrigin(boxID: Fixtures.otherBox, position: nil, countryCode: nil))
        #expect(try report(within10km, bottle: unknownOrigin).outcome == .unknown(reason: "where it was dropped is unknown"))
        #expect(throws: DomainValidationError.self) { try Condition.distanceFromOrigin(DistanceFromOriginCondition(maximumKilometres: 0)).validate() }
        #expect(throws: DomainValidationError.self) { try Condition.boxPosition(BoxPositionCondition(center: Fixtures.berlin, radiusMeters: 0)).validate() }
    }
}
