/// Which implementation drives a ``SerialPort``.
public enum SerialBackend: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// libserialport (`sp_open`, `sp_set_*`): kernel UARTs and USB CDC/serial adapters,
    /// the ports that have a `/sys/class/tty/<name>` entry.
    case libserialport
    /// Plain termios on any tty, including pseudo-terminals, which libserialport refuses.
    case termios

    public var description: String { rawValue }
}
