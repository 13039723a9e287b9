/// One camp beacon message: what rides on mesh port `camp` (6), after the port byte.
///
/// The multi-camp protocol lets camps (a box, or a beacon kit without a visitor page)
/// find each other and talk over the mesh: who is where (``Announce``), short chat lines,
/// requests for resources, events, and emergencies. ``encoded()`` and
/// ``init(decoding:)`` are the wire form (`docs/camps.md`): a header byte
/// (version in the high nibble, ``Kind`` in the low nibble), then the kind's fields.
public enum CampMessage: Sendable, Hashable {
    /// "Who is there?": camps that hear it answer with an announce (rate-limited).
    case ping(nonce: UInt32)
    /// A camp's name, place, size and note; sent every `announce_interval_s`.
    case announce(Announce)
    /// A chat line from a camp.
    case chat(Chat)
    /// A request for water, medical help, power, tools, food or other things.
    case request(ResourceRequest)
    /// Something happening at a camp at a given time.
    case event(Event)
    /// An emergency: sent at the highest priority and relayed further than other traffic.
    case emergency(Emergency)

    /// The wire protocol version this build speaks.
    public static let version: UInt8 = 1

    /// The low nibble of the header byte.
    public enum Kind: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case ping = 0, announce = 1, chat = 2, request = 3, event = 4, emergency = 5

        public var description: String {
            switch self {
            case .ping: "ping"
            case .announce: "announce"
            case .chat: "chat"
            case .request: "request"
            case .event: "event"
            case .emergency: "emergency"
            }
        }

        /// The kind named `text` (`chat`, `request`, …), as control commands spell it.
        public init?(name text: String) {
            guard let kind = Self.allCases.first(where: { $0.description == text }) else { return nil }
            self = kind
        }
    }

    public var kind: Kind {
        switch self {
        case .ping: .ping
        case .announce: .announce
        case .chat: .chat
        case .request: .request
        case .event: .event
        case .emergency: .emergency
        }
    }
}
