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
