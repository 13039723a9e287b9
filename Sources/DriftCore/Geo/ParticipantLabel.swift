/// How far a chat participant is from the bottle, as shown next to their lines.
///
/// Decided by ``classify(distanceMeters:participantCountry:bottleCountry:)``:
/// distance first (the participant's box to the bottle's box), then the boxes'
/// configured countries.
public enum ParticipantLabel: String, Sendable, Codable, CaseIterable {
    /// Under 5 km.
    case local
    /// 5 km up to (not including) 50 km.
    case nearby
    /// 50 km or more, same country.
    case sameCountry
    /// Different country on the same continent.
    case sameContinent
    /// Anything else, or nothing known.
    case global

    /// Upper bound (exclusive) of ``local``, metres.
    public static let localLimitMeters = 5_000.0
    /// Upper bound (exclusive) of ``nearby``, metres.
    public static let nearbyLimitMeters = 50_000.0

    /// Labels a participant.
    ///
    /// - Parameters:
    ///   - distanceMeters: participant's box to the bottle's box; `nil` when either
    ///     position is unknown (then only countries decide, never Local/Nearby).
    ///   - participantCountry: the participant's box country, when configured.
    ///   - bottleCountry: the bottle's box country, when configured.
    public static func classify(
        distanceMeters: Double?, participantCountry: CountryCode?, bottleCountry: CountryCode?
    ) -> ParticipantLabel {
        if let distance = distanceMeters, distance.isFinite, distance >= 0 {
            if distance < localLimitMeters { return .local }
            if distance < nearbyLimitMeters { return .nearby }
        }
        guard let mine = participantCountry, let theirs = bottleCountry else { return .global }
        if mine == theirs { return .sameCountry }
        if mine.continent == theirs.continent { return .sameContinent }
        return .global
    }

    /// Text shown in the chat, e.g. "Same country".
    public var displayName: String {
        switch self {
        case .local: "Local"
        case .nearby: "Nearby"
        case .sameCountry: "Same country"
        case .sameContinent: "Same continent"
        case .global: "Global"
        }
    }
}
