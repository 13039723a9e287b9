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

/// Needs a press of the box's button within the last `withinSeconds`, bound to the visitor
/// who asked for it (see ``PresenceBinder``).
public struct PresenceCondition: Sendable, Equatable, Hashable, Codable {
    public var withinSeconds: Int

    public init(withinSeconds: Int = 60) {
        self.withinSeconds = withinSeconds
    }

    func validate() throws(DomainValidationError) {
        guard (5...600).contains(withinSeconds) else {
            throw DomainValidationError(field: "presence.withinSeconds", value: "\(withinSeconds)", problem: "must be 5–600 s")
        }
    }
}

/// Opens only `seconds` after the bottle was created.
public struct UnlockDelay: Sendable, Equatable, Hashable, Codable {
    public var seconds: Int

    public init(seconds: Int) {
        self.seconds = seconds
    }

    func validate() throws(DomainValidationError) {
        guard (1...(365 * 86_400)).contains(seconds) else {
            throw DomainValidationError(field: "delay.seconds", value: "\(seconds)", problem: "must be 1 s to 365 days")
        }
    }
}
