/// What went wrong talking to a Meshtastic node.
public enum MeshtasticError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The node did not finish the `want_config_id` handshake in time.
    case handshakeTimeout(path: String, after: Duration)
    /// No handshake completed within the wait (the node is absent, busy or rebooting).
    case notConnected(path: String, lastProblem: String?)
    /// `radio.port = "auto"` and no serial port has a known Meshtastic USB id.
    case noNodeFound(ports: [String])
    /// The node announced a reboot; the driver reconnects.
    case nodeRebooted(path: String)
    /// A frame longer than `Data.payload` holds (233 bytes).
    case frameTooLarge(count: Int, limit: Int)
    /// The radio was closed.
    case closed

    public var description: String {
        switch self {
        case .handshakeTimeout(let path, let after):
            return "\(path): the Meshtastic node did not complete the config handshake within \(after)"
        case .notConnected(let path, let lastProblem):
            return "\(path): no Meshtastic node connected" + (lastProblem.map { " (\($0))" } ?? "")
        case .noNodeFound(let ports):
            return "no serial port with a Meshtastic USB id (" + (ports.isEmpty ? "no serial ports" : "ports: " + ports.joined(separator: ", ")) + ")"
        case .nodeRebooted(let path):
            return "\(path): the Meshtastic node rebooted"
        case .frameTooLarge(let count, let limit):
            return "a \(count)-byte frame does not fit a Meshtastic packet (at most \(limit) bytes)"
        case .closed:
            return "the Meshtastic radio is closed"
        }
    }
}
