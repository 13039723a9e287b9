/// The four parts of a solar day used by the solar window condition.
///
/// - ``day``: sun centre above −0.833° (between sunrise and sunset).
/// - ``civilDusk``: evening twilight, sun between −0.833° and −6° and sinking.
/// - ``night``: sun centre at or below −6°.
/// - ``civilDawn``: morning twilight, sun between −6° and −0.833° and climbing.
public enum SolarPhase: String, Sendable, Codable, CaseIterable {
    case day
    case civilDusk
    case night
    case civilDawn

    /// Words used in condition reasons, e.g. "at civil dusk".
    public var phrase: String {
        switch self {
        case .day: "in daylight"
        case .civilDusk: "at civil dusk"
        case .night: "at night"
        case .civilDawn: "at civil dawn"
        }
    }

    /// Words for "now", e.g. "the sun is up".
    public var currently: String {
        switch self {
        case .day: "the sun is up"
        case .civilDusk: "it is civil dusk"
        case .night: "it is night"
        case .civilDawn: "it is civil dawn"
        }
    }
}
