import DriftCore
import Foundation
import Testing

@Suite struct GeoTests {
    @Test func haversineMatchesKnownDistances() throws {
        let paris = try GeoPoint(latitude: 48.8566, longitude: 2.3522)
        let distance = Fixtures.berlin.distance(to: paris)
        #expect(abs(distance - 878_000) < 3_000)
        #expect(Fixtures.berlin.distance(to: Fixtures.berlin) == 0)
        // Across the date line: 1° of longitude at the equator ≈ 111.2 km.
        let west = try GeoPoint(latitude: 0, longitude: 179.5)
        let east = try GeoPoint(latitude: 0, longitude: -179.5)
        #expect(abs(west.distance(to: east) - 111_195) < 50)
    }

    @Test func rejectsOutOfRangeCoordinates() {
        #expect(throws: DomainValidationError.self) { try GeoPoint(latitude: 91, longitude: 0) }
        #expect(throws: DomainValidationError.self) { try GeoPoint(latitude: 0, longitude: -180.1) }
        #expect(throws: DomainValidationError.self) { try GeoPoint(latitude: .nan, longitude: 0) }
    }

    @Test func destinationPlacesPointsAtExactDistances() {
        for meters in [10.0, 4_990, 50_100, 1_000_000] {
            let point = Fixtures.berlin.destination(meters: meters, bearingDegrees: 73)
            #expect(abs(Fixtures.berlin.distance(to: point) - meters) < 0.01)
        }
    }

    @Test(arguments: [
        (4_990.0, ParticipantLabel.local), (5_010.0, .nearby),
        (49_900.0, .nearby), (50_100.0, .sameCountry),
    ])
    func distanceBoundaries(meters: Double, expected: ParticipantLabel) throws {
        let participantBox = Fixtures.berlin.destination(meters: meters, bearingDegrees: 200)
        let label = ParticipantLabel.classify(
            distanceMeters: participantBox.distance(to: Fixtures.berlin),
            participantCountry: try CountryCode("DE"), bottleCountry: try CountryCode("DE"))
        #expect(label == expected)
    }

    @Test func exactLimitsBelongToTheWiderLabel() throws {
        let de = try CountryCode("DE")
        #expect(ParticipantLabel.classify(distanceMeters: 5_000, participantCountry: de, bottleCountry: de) == .nearby)
        #expect(ParticipantLabel.classify(distanceMeters: 50_000, participantCountry: de, bottleCountry: de) == .sameCountry)
    }

    @Test func countryAndContinentLabels() throws {
        let far = 600_000.0
        #expect(ParticipantLabel.classify(distanceMeters: far, participantCountry: try CountryCode("FR"), bottleCountry: try CountryCode("DE")) == .sameContinent)
        #expect(ParticipantLabel.classify(distanceMeters: far, participantCountry: try CountryCode("JP"), bottleCountry: try CountryCode("DE")) == .global)
        #expect(ParticipantLabel.classify(distanceMeters: far, participantCountry: try CountryCode("AR"), bottleCountry: try CountryCode("BR")) == .sameContinent)
        #expect(ParticipantLabel.classify(distanceMeters: nil, participantCountry: try CountryCode("DE"), bottleCountry: try CountryCode("DE")) == .sameCountry)
        #expect(ParticipantLabel.classify(distanceMeters: nil, participantCountry: nil, bottleCountry: try CountryCode("DE")) == .global)
        // Distance wins over countries: across a border but close by.
        #expect(ParticipantLabel.classify(distanceMeters: 3_000, participantCountry: try CountryCode("CH"), bottleCountry: try CountryCode("DE")) == .local)
    }

    @Test func countryCodesNormaliseAndCoverEveryContinent() throws {
        #expect(try CountryCode(" de ").rawValue == "DE")
        #expect(throws: DomainValidationError.self) { try CountryCode("XX") }
        #expect(throws: DomainValidationError.self) { try CountryCode("DEU") }
        let samples: [(String, Continent)] = [
            ("DE", .europe), ("RU", .europe), ("TR", .asia), ("EG", .africa), ("US", .northAmerica),
            ("PA", .northAmerica), ("BR", .southAmerica), ("AU", .oceania), ("AQ", .antarctica), ("JP", .asia),
        ]
        #expect(CountryCode.all.count == 249)
        #expect(Set(CountryCode.all.map(\.continent)) == Set(Continent.allCases))
        for (code, continent) in samples {
            #expect(try CountryCode(code).continent == continent, "\(code)")
        }
    }

    @Test func participantLabelRoundTripsThroughJSON() throws {
        let data = try JSONEncoder().encode(ParticipantLabel.sameContinent)
        #expect(try JSONDecoder().decode(ParticipantLabel.self, from: data) == .sameContinent)
        #expect(ParticipantLabel.sameContinent.displayName == "Same continent")
    }
}
