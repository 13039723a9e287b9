#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension MeshHeader {
    /// The expiry minute for a packet that should live `lifetime` from `now` (rounded up
    /// to a whole minute, so a packet never dies early).
    public static func expiryMinute(now: Date, lifetime: TimeInterval) -> UInt32 {
        let seconds = max(0, now.timeIntervalSince1970 + lifetime)
        let minutes = (seconds / 60).rounded(.up)
        return minutes >= Double(UInt32.max) ? UInt32.max : UInt32(minutes)
    }

    /// True from the start of minute `expiresAtMinute` on (wall clock, 1970 epoch).
    /// Only meaningful when the box's clock is trustworthy.
    public func isExpired(now: Date) -> Bool {
        now.timeIntervalSince1970 >= Double(expiresAtMinute) * 60
    }
}

extension MeshFrameCodec {
    /// Whether `header`'s packet has expired at `now` (see `MeshHeader.isExpired(now:)`).
    public static func isExpired(_ header: MeshHeader, now: Date) -> Bool {
        header.isExpired(now: now)
    }
}
