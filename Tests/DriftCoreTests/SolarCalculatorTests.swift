import DriftCore
import Foundation
import Testing

/// Checks SolarCalculator against vectors computed by `tools/solar/make_vectors.py` (astral).
@Suite struct SolarCalculatorTests {
    struct VectorFile: Decodable {
        var vectors: [Vector]
    }

    struct Vector: Decodable, CustomTestStringConvertible {
        var name: String
        var latitude: Double
        var longitude: Double
        var timeZone: String
        var date: String
        var sunrise: String
        var sunset: String
        var civil_dawn: String
        var civil_dusk: String
        var elevations: [Elevation]
        var testDescription: String { "\(name) \(date)" }
    }

    struct Elevation: Decodable {
        var at: String
        var degrees: Double
    }

    static let vectors: [Vector] = {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()
            .appendingPathComponent("../../tools/solar/solar-vectors.json")
        guard let data = try? Data(contentsOf: url),
              let file = try? JSONDecoder().decode(VectorFile.self, from: data) else { return [] }
        return file.vectors
    }()

    @Test func vectorFileCoversTheRequiredCases() {
        let vectors = Self.vectors
        #expect(vectors.count >= 20)
        #expect(vectors.contains { $0.sunrise == "always_above" }, "needs a polar day")
        #expect(vectors.contains { $0.sunrise == "always_below" }, "needs a polar night")
        #expect(vectors.contains { $0.latitude < 0 }, "needs the southern hemisphere")
        #expect(vectors.contains { abs($0.latitude) < 23.44 }, "needs the tropics")
        #expect(vectors.contains { abs($0.longitude) > 170 }, "needs the date line")
    }

    @Test(arguments: vectors)
    func eventsMatchReferenceWithinOneMinute(_ vector: Vector) throws {
        let point = try GeoPoint(latitude: vector.latitude, longitude: vector.longitude)
        let zone = try #require(TimeZone(identifier: vector.timeZone))
        let parts = vector.date.split(separator: "-").compactMap { Int($0) }
        try #require(parts.count == 3)
        let day = try #require(SolarCalculator.solarDay(year: parts[0], month: parts[1], day: parts[2], in: zone, at: point))
        try check(day.sunrise, against: vector.sunrise, "sunrise")
        try check(day.sunset, against: vector.sunset, "sunset")
        try check(day.civilDawn, against: vector.civil_dawn, "civil dawn")
        try check(day.civilDusk, against: vector.civil_dusk, "civil dusk")
        switch vector.sunrise {
        case "always_above": #expect(day.classification == .polarDay)
        case "always_below": #expect(day.classification == .polarNight)
        default: break
        }
    }

    @Test(arguments: vectors)
    func elevationMatchesReference(_ vector: Vector) throws {
        let point = try GeoPoint(latitude: vector.latitude, longitude: vector.longitude)
        for sample in vector.elevations {
            let at = try #require(Self.parse(sample.at))
            let elevation = SolarPosition.elevation(at: at, for: point)
            #expect(abs(elevation - sample.degrees) < 0.05, "\(vector.name) at \(sample.at): \(elevation) vs \(sample.degrees)")
        }
    }

    private func check(_ event: SunEvent, against expected: String, _ label: String) throws {
        switch expected {
        case "always_above":
            #expect(event == .sunAlwaysAbove, "\(label): expected sun always above, got \(event)")
        case "always_below":
            #expect(event == .sunAlwaysBelow, "\(label): expected sun always below, got \(event)")
        default:
            let reference = try #require(Self.parse(expected))
            guard let date = event.date else {
                Issue.record("\(label): expected \(expected), got \(event)")
                return
            }
            let error = abs(date.timeIntervalSince(reference))
            #expect(error <= 60, "\(label): \(date) vs \(expected) (\(Int(error)) s off)")
        }
    }

    static func parse(_ iso: String) -> Date? {
        try? Date(iso, strategy: .iso8601)
    }

    @Test func phaseFollowsTheSunAcrossOneDay() throws {
        let berlin = try GeoPoint(latitude: 52.52, longitude: 13.405)
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let day = try #require(SolarCalculator.solarDay(year: 2024, month: 3, day: 20, in: zone, at: berlin))
        let dawn = try #require(day.civilDawn.date)
        let sunrise = try #require(day.sunrise.date)
        let sunset = try #require(day.sunset.date)
        let dusk = try #require(day.civilDusk.date)
        #expect(SolarCalculator.phase(at: dawn.addingTimeInterval(-120), for: berlin) == .night)
        #expect(SolarCalculator.phase(at: dawn.addingTimeInterval(120), for: berlin) == .civilDawn)
        #expect(SolarCalculator.phase(at: sunrise.addingTimeInterval(120), for: berlin) == .day)
        #expect(SolarCalculator.phase(at: sunset.addingTimeInterval(-120), for: berlin) == .day)
        #expect(SolarCalculator.phase(at: sunset.addingTimeInterval(120), for: berlin) == .civilDusk)
        #expect(SolarCalculator.phase(at: dusk.addingTimeInterval(120), for: berlin) == .night)
    }

    @Test func polarDayAndNightPhases() throws {
        let tromso = try GeoPoint(latitude: 69.6492, longitude: 18.9553)
        let midsummerMidnight = try #require(Self.parse("2024-06-21T22:00:00Z"))
        #expect(SolarCalculator.phase(at: midsummerMidnight, for: tromso) == .day)
        let longyearbyen = try GeoPoint(latitude: 78.2232, longitude: 15.6267)
        let midwinterNoon = try #require(Self.parse("2024-12-21T11:00:00Z"))
        #expect(SolarCalculator.phase(at: midwinterNoon, for: longyearbyen) == .night)
    }
}
