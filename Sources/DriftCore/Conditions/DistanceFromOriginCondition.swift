/// Opens only within `maximumKilometres` of where the bottle was dropped (its origin).
public struct DistanceFromOriginCondition: Sendable, Equatable, Hashable, Codable {
    public var maximumKilometres: Double

    public init(maximumKilometres: Double) {
        self.maximumKilometres = maximumKilometres
    }

    func validate() throws(DomainValidationError) {
        guard maximumKilometres.isFinite, (0.1...20_000).contains(maximumKilometres) else {
            throw DomainValidationError(field: "distanceFromOrigin.maximumKilometres", value: "\(maximumKilometres)", problem: "must be 0.1–20,000 km")
        }
    }
}
