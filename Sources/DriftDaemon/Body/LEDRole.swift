/// The box's LEDs, by what they show.
public enum LEDRole: String, Sendable, Hashable, CaseIterable {
    /// Health: heartbeat, or the blink code of a fault.
    case status
    /// Bottles and chats at this box.
    case bottle
    /// Radio traffic.
    case radio
    /// GPS fix.
    case gps
}
