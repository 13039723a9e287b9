/// One opening condition a creator puts on a bottle. All of a bottle's conditions must hold.
///
/// Ambient conditions (``isAmbient``) depend only on the box and the time and decide
/// whether the bottle is *openable*; visitor proofs (password, presence) are checked
/// when a visitor opens it. One-shot and expiry are bottle fields, not list entries
/// (see ``Bottle/isOneShot`` and ``Bottle/expiresAt``), but they are reported with
/// the conditions (``ConditionKind``).
public enum Condition: Sendable, Equatable, Codable {
    /// A password; only its salted PBKDF2 hash is kept.
    case password(PasswordHash)
    /// A wall-clock window in the box's time zone.
    case timeOfDay(TimeOfDayWindow)
    /// Only on these days of the week (box time zone).
    case daysOfWeek(Set<Weekday>)
    /// Only on these calendar days (box time zone).
    case dateRange(DateRange)
    /// Only in these parts of the solar day at the box's position.
    case solar(Set<SolarPhase>)
    /// Only in this weather, from the box's sensors.
    case weather(WeatherCondition)
    /// Only while the box is near a coordinate, by a good GPS fix.
    case boxPosition(BoxPositionCondition)
    /// Only after a button press on the box by the visitor who asked.
    case presence(PresenceCondition)
    /// Only within some distance of where the bottle was dropped.
    case distanceFromOrigin(DistanceFromOriginCondition)
    /// Only some time after the bottle was created.
    case delay(UnlockDelay)

    /// The kind, for reports and storage.
    public var kind: ConditionKind {
        switch self {
        case .password: .password
        case .timeOfDay: .timeOfDay
        case .daysOfWeek: .daysOfWeek
        case .dateRange: .dateRange
        case .solar: .solar
        case .weather(let weather):
            switch weather {
            case .temperature: .temperature
            case .humidity: .humidity
            case .pressure: .pressure
            case .pressureTrend: .pressureTrend
            case .rain: .rain
            }
        case .boxPosition: .boxPosition
        case .presence: .presence
        case .distanceFromOrigin: .distanceFromOrigin
        case .delay: .delay
        }
    }

    /// `true` for conditions that decide *openable*; `false` for visitor proofs.
    public var isAmbient: Bool { kind.isAmbient }

    /// Checks the parameters (ranges, non-empty sets).
    /// - Throws: ``DomainValidationError`` naming the bad parameter.
    public func validate() throws(DomainValidationError) {
        switch self {
        case .password: break
        case .timeOfDay(let window): try window.validate()
        case .daysOfWeek(let days):
            guard !days.isEmpty else {
                throw DomainValidationError(field: "daysOfWeek", value: "", problem: "needs at least one day")
            }
        case .dateRange(let range): try range.validate()
        case .solar(let phases):
            guard !phases.isEmpty else {
                throw DomainValidationError(field: "solar", value: "", problem: "needs at least one solar phase")
            }
        case .weather(let weather): try weather.validate()
        case .boxPosition(let position): try position.validate()
        case .presence(let presence): try presence.validate()
        case .distanceFromOrigin(let distance): try distance.validate()
        case .delay(let delay): try delay.validate()
        }
    }
}
