/// Opens only on calendar days from `from` through `through` (both inclusive), box time zone.
///
/// Either end may be open; at least one must be given.
public struct DateRange: Sendable, Equatable, Hashable, Codable {
    public var from: LocalDate?
    public var through: LocalDate?

    public init(from: LocalDate? = nil, through: LocalDate? = nil) {
        self.from = from
        self.through = through
    }

    /// Whether `day` lies in the range.
    public func contains(_ day: LocalDate) -> Bool {
        if let from, day < from { return false }
        if let through, day > through { return false }
        return true
    }

    func validate() throws(DomainValidationError) {
        guard from != nil || through != nil else {
            throw DomainValidationError(field: "dateRange", value: "", problem: "needs a first or a last day")
        }
        if let from, let through, through < from {
            throw DomainValidationError(field: "dateRange", value: "\(from)…\(through)", problem: "last day is before first day")
        }
    }
}
