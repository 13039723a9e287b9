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
