import Foundation

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
