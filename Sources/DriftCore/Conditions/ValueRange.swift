/// A closed range with optional ends: `minimum ≤ value ≤ maximum`.
public struct ValueRange: Sendable, Equatable, Hashable, Codable {
    public var minimum: Double?
    public var maximum: Double?

    public init(minimum: Double? = nil, maximum: Double? = nil) {
        self.minimum = minimum
        self.maximum = maximum
    }

    public func contains(_ value: Double) -> Bool {
        if let minimum, value < minimum { return false }
        if let maximum, value > maximum { return false }
        return true
    }

    func validate(field: String, limits: ClosedRange<Double>) throws(DomainValidationError) {
        guard minimum != nil || maximum != nil else {
            throw DomainValidationError(field: field, value: "", problem: "needs a minimum or a maximum")
        }
        for bound in [minimum, maximum].compactMap({ $0 }) where !(bound.isFinite && limits.contains(bound)) {
            throw DomainValidationError(field: field, value: "\(bound)",
                                        problem: "must be between \(Text.number(limits.lowerBound)) and \(Text.number(limits.upperBound))")
        }
        if let minimum, let maximum, maximum < minimum {
            throw DomainValidationError(field: field, value: "\(minimum)…\(maximum)", problem: "maximum is below minimum")
        }
    }

    /// "between 5 and 15 °C", "at least 5 °C", "at most 15 °C".
    func phrase(unit: String) -> String {
        switch (minimum, maximum) {
        case let (low?, high?): "between \(Text.number(low)) and \(Text.number(high)) \(unit)"
        case let (low?, nil): "at least \(Text.number(low)) \(unit)"
        case let (nil, high?): "at most \(Text.number(high)) \(unit)"
        case (nil, nil): "any value"
        }
    }
}
