import Foundation

/// What the box knows about its GPS: whether a receiver exists, since when it
/// listens, and its latest fix (of any quality or age).
public struct GPSState: Sendable, Equatable, Codable {
    /// `false` when no receiver is configured or it is unplugged.
    public var receiverPresent: Bool
    /// When the GPS service started listening (for "no fix for …").
    public var listeningSince: Date?
    /// The most recent fix, however old or weak.
    public var lastFix: PositionFix?

    public init(receiverPresent: Bool, listeningSince: Date? = nil, lastFix: PositionFix? = nil) {
        self.receiverPresent = receiverPresent
        self.listeningSince = listeningSince
        self.lastFix = lastFix
    }

    /// No receiver at all.
    public static let absent = GPSState(receiverPresent: false)
}
