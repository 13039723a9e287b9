/// What rides inside a mesh packet's payload: an application port byte, then the body.
///
/// The mesh layer carries any port. `text` is plain UTF-8 (for `driftd mesh send` and
/// field tests); the others carry the product's traffic, each with its own compact codec.
public struct MeshMessage: Sendable, Equatable {
    /// Application ports.
    public enum Port: UInt8, Sendable {
        case text = 1
        /// A bottle travelling to another box (manual or drift placement).
        case bottle = 2
        /// A chat line, join or leave of a bottle's chat from another box.
        case chat = 3
        /// "This bottle is gone": erase every part of it.
        case erase = 4
        /// A notice for a watcher or creator at another box.
        case notice = 5
        /// Camp beacons: ping, announce, chat, resource request, event, emergency.
        case camp = 6
        /// Box directory entry (name, position, activity) for placement.
        case boxInfo = 7
    }

    public var port: UInt8
    public var body: [UInt8]

    public init(port: UInt8, body: [UInt8]) {
        self.port = port
        self.body = body
    }

    public static func text(_ text: String) -> MeshMessage {
        MeshMessage(port: Port.text.rawValue, body: Array(text.utf8))
    }

    public var encoded: [UInt8] { [port] + body }

    /// `nil` for an empty payload (no port byte).
    public init?(decoding bytes: [UInt8]) {
        guard let first = bytes.first else { return nil }
        port = first
        body = Array(bytes.dropFirst())
    }

    /// The body as text when this is a text message with valid UTF-8.
    public var text: String? {
        guard port == Port.text.rawValue else { return nil }
        return String(validating: body, as: UTF8.self)
    }
}
