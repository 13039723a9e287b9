import Foundation
import GNSS
import TestSupport
import Testing

@Suite("Stable box position")
struct StablePositionTests {
    static let origin = (latitude: 52.4731, longitude: 13.4019)
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A point `north`/`east` metres from (`latitude`, `longitude`).
    static func offset(_ latitude: Double, _ longitude: Double, north: Double, east: Double) -> (Double, Double) {
        let metresPerDegree = 6_371_008.8 * .pi / 180
        return (latitude + north / metresPerDegree, longitude + east / (metresPerDegree * cos(latitude * .pi / 180)))
    }

    /// Gaussian noise (Box–Muller) with standard deviation `sigma`.
    static func noise(_ sigma: Double, _ generator: inout SeededGenerator) -> Double {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &generator)
        let u2 = Double.random(in: 0..<1, using: &generator)
        return sigma * (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    static func sample(_ point: (Double, Double), second: Int, mode: GNSSFix.Mode = .threeD, hdop: Double? = 1.2) -> StablePosition.Sample {
        StablePosition.Sample(latitude: point.0, longitude: point.1, altitude: 44, mode: mode, hdop: hdop,
                              time: start.addingTimeInterval(TimeInterval(second)))
    }

    @Test("noise of a few metres around a point converges within 1 m; spread is about the noise")
    func converges() throws {
        var generator = SeededGenerator(seed: 1)
        var stable = StablePosition()
        for second in 0..<300 {
            let point = Self.offset(Self.origin.latitude, Self.origin.longitude,
                                    north: Self.noise(3, &generator), east: Self.noise(3, &generator))
            stable.add(Self.sample(point, second: second))
        }
        let estimate = try #require(stable.estimate)
        let error = StablePosition.distance(estimate.latitude, estimate.longitude, Self.origin.latitude, Self.origin.longitude)
        #expect(error < 1, "estimate \(error) m off")
        #expect(estimate.spread > 1 && estimate.spread < 6, "spread \(estimate.spread)")
        #expect(estimate.fixCount == 300)
        #expect(estimate.altitude == 44)
    }

    @Test("multipath jumps of hundreds of metres are ignored")
    func outliersIgnored() throws {
        var generator = SeededGenerator(seed: 2)
        var stable = StablePosition()
        var events: [StablePosition.Event] = []
        for second in 0..<300 {
            var north = Self.noise(2, &generator), east = Self.noise(2, &generator)
            if second % 7 == 3 {   // one fix in seven jumps 50–800 m, in runs shorter than the moved count
                north += Double.random(in: 50...800, using: &generator)
                east -= Double.random(in: 50...800, using: &generator)
            }
            if let event = stable.add(Self.sample(Self.offset(Self.origin.latitude, Self.origin.longitude, north: north, east: east), second: second)) {
                events.append(event)
            }
        }
        let estimate = try #require(stable.estimate)
        let error = StablePosition.distance(estimate.latitude, estimate.longitude, Self.origin.latitude, Self.origin.longitude)
        #expect(error < 1.5, "estimate \(error) m off")
        #expect(estimate.inlierCount < estimate.fixCount)
        #expect(events.count == 1, "only `established`: \(events)")
        if case .established = events.first {} else { Issue.record("first event \(String(describing: events.first))") }
    }

    @Test("a few fixes do not make a stable position")
    func needsEnoughFixes() {
        var stable = StablePosition()
        for second in 0..<29 {
            #expect(stable.add(Self.sample(Self.origin, second: second)) == nil)
        }
        #expect(stable.estimate == nil)
        if case .established = stable.add(Self.sample(Self.origin, second: 29)) {} else { Issue.record("30th fix establishes") }
        #expect(stable.estimate != nil)
    }

    @Test("weak, stale and no-fix samples are rejected by the gates")
    func qualityGates() {
        var stable = StablePosition(settings: .init(maximumHDOP: 4, maximumAge: 30, minimumFixes: 1))
        stable.add(Self.sample(Self.origin, second: 0, mode: .noFix))
        stable.add(Self.sample(Self.origin, second: 0, hdop: 4.5))
        stable.add(Self.sample(Self.origin, second: 0, mode: .twoD, hdop: nil))
        stable.add(Self.sample(Self.origin, second: 0), now: Self.start.addingTimeInterval(31))
        #expect(stable.estimate == nil)
        #expect(stable.rejected == [.noFix: 1, .weak: 2, .stale: 1])
        stable.add(Self.sample(Self.origin, second: 0, mode: .twoD, hdop: 3.9))
        #expect(stable.estimate != nil, "a 2D fix with a good HDOP counts")
        stable.add(Self.sample(Self.origin, second: 1, mode: .threeD, hdop: nil))
        #expect(stable.windowCount == 2, "a 3D fix without HDOP counts")
    }

    @Test("a move of 2 km is detected after the threshold count, not on one stray fix")
    func movedDetected() throws {
        var generator = SeededGenerator(seed: 3)
        let settings = StablePosition.Settings(movedThreshold: 100, movedCount: 20)
        var stable = StablePosition(settings: settings)
        var second = 0
        func point(_ base: (Double, Double)) -> (Double, Double) {
            Self.offset(base.0, base.1, north: Self.noise(3, &generator), east: Self.noise(3, &generator))
        }
        for _ in 0..<100 { stable.add(Self.sample(point(Self.origin), second: second)); second += 1 }
        let moved = Self.offset(Self.origin.latitude, Self.origin.longitude, north: 1200, east: 1600)   // 2 km

        // One stray fix at the new place, then home again: nothing happens.
        #expect(stable.add(Self.sample(point(moved), second: second)) == nil)
        second += 1
        #expect(stable.add(Self.sample(point(Self.origin), second: second)) == nil)
        second += 1
        let before = try #require(stable.estimate)
        #expect(before.fixCount == 101, "the stray fix did not enter the window")

        // Moved for real: 19 far fixes say nothing, the 20th says moved.
        for _ in 0..<19 {
            #expect(stable.add(Self.sample(point(moved), second: second)) == nil)
            second += 1
        }
        #expect(stable.estimate == before, "the estimate holds while the count runs")
        let event = stable.add(Self.sample(point(moved), second: second))
        second += 1
        guard case .moved(let from, _, let distance) = event else {
            Issue.record("expected moved, got \(String(describing: event))")
            return
        }
        #expect(from == before)
        #expect(abs(distance - 2000) < 30, "\(distance)")
        #expect(stable.estimate == nil, "restarts: 20 fixes at the new place are not yet stable")

        var established: StablePosition.Estimate?
        for _ in 0..<20 {
            if case .established(let estimate) = stable.add(Self.sample(point(moved), second: second)) { established = estimate }
            second += 1
        }
        let after = try #require(established)
        #expect(StablePosition.distance(after.latitude, after.longitude, moved.0, moved.1) < 3)
        #expect(after.since == Self.start.addingTimeInterval(TimeInterval(102)), "since the first far fix")
    }

    @Test("the window is bounded")
    func boundedWindow() {
        var stable = StablePosition(settings: .init(windowSize: 50, minimumFixes: 10))
        for second in 0..<500 { stable.add(Self.sample(Self.origin, second: second)) }
        #expect(stable.windowCount == 50)
        #expect(stable.estimate?.fixCount == 50)
    }
}
