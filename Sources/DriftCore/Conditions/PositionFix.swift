import Foundation

/// One GPS position solution as the GPS service reports it.
public struct PositionFix: Sendable, Equatable, Codable {
    /// 2D (no altitude, three satellites) or 3D fix.
    public enum Mode: String, Sendable, Codable {
        case twoD = "2D"
        case threeD = "3D"
    }

    public var position: GeoPoint
    public var mode: Mode
    /// Horizontal dilution of precision, when the receiver reports it.
    public var hdop: Double?
    /// When the fix was computed (receiver time, on the box clock).
    public var time: Date

    public init(position: GeoPoint, mode: Mode, hdop: Double?, time: Date) {
        self.position = position
        self.mode = mode
        self.hdop = hdop
        self.time = time
    }
}

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
