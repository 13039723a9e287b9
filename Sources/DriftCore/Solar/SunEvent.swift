import Foundation

/// When the sun crosses one altitude on a given local day, or why it does not.
public enum SunEvent: Sendable, Equatable, Codable {
    /// The crossing happens at this instant.
    case at(Date)
    /// The sun stays above the altitude all day (polar day for sunrise/sunset).
    case sunAlwaysAbove
    /// The sun stays below the altitude all day (polar night for sunrise/sunset).
    case sunAlwaysBelow

    /// The instant, if the crossing happens.
    public var date: Date? {
        if case .at(let date) = self { return date }
        return nil
    }
}

/// Sunrise, sunset and civil twilight for one local calendar day at one place.
public struct SolarDay: Sendable, Equatable, Codable {
    /// The sun's upper limb rises (centre at −0.833°, standard refraction).
    public var sunrise: SunEvent
    /// The sun's upper limb sets.
    public var sunset: SunEvent
    /// Morning civil twilight begins (centre at −6°).
    public var civilDawn: SunEvent
    /// Evening civil twilight ends (centre at −6°).
    public var civilDusk: SunEvent

    /// Whether the day is polar day, polar night, or has a sunrise or sunset.
    public var classification: Classification {
        if sunrise == .sunAlwaysAbove && sunset == .sunAlwaysAbove { return .polarDay }
        if sunrise == .sunAlwaysBelow && sunset == .sunAlwaysBelow { return .polarNight }
        return .normal
    }

    /// See ``classification``.
    public enum Classification: String, Sendable, Codable {
        case normal
        case polarDay
        case polarNight
    }
}
