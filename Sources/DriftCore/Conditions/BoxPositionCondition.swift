/// Opens only while the box is within `radiusMeters` of `center`, by a good GPS fix.
public struct BoxPositionCondition: Sendable, Equatable, Hashable, Codable {
    public var center: GeoPoint
    public var radiusMeters: Double

    public init(center: GeoPoint, radiusMeters: Double) {
        self.center = center
        self.radiusMeters = radiusMeters
    }

    func validate() throws(DomainValidationError) {
        guard radiusMeters.isFinite, (1...100_000).contains(radiusMeters) else {
            throw DomainValidationError(field: "boxPosition.radiusMeters", value: "\(radiusMeters)", problem: "must be 1–100,000 m")
        }
    }
}
