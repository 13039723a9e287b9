extension CampMessage {
    /// A camp's announcement of itself.
    public struct Announce: Sendable, Hashable {
        /// 1…``CampLimits/name`` UTF-8 bytes.
        public var name: String
        public var position: CampPosition?
        public var members: UInt16
        /// 0…``CampLimits/note`` UTF-8 bytes.
        public var note: String

        public init(name: String, position: CampPosition?, members: UInt16, note: String = "") {
            self.name = name
            self.position = position
            self.members = members
            self.note = note
        }
    }

    /// A chat line, labelled with the sending camp's name (so a box that has not heard the
    /// camp's announce yet can still show who spoke).
    public struct Chat: Sendable, Hashable {
        /// 0…``CampLimits/name`` bytes (empty: a box that is no camp).
        public var camp: String
        /// 1…``CampLimits/text`` bytes.
        public var text: String

        public init(camp: String, text: String) {
            self.camp = camp
            self.text = text
        }
    }

    /// What a request asks for.
    public enum ResourceKind: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case water = 0, medical = 1, power = 2, tools = 3, food = 4, other = 5

        public var description: String {
            switch self {
            case .water: "water"
            case .medical: "medical"
            case .power: "power"
            case .tools: "tools"
            case .food: "food"
            case .other: "other"
            }
        }

        public init?(name: String) {
            guard let kind = Self.allCases.first(where: { $0.description == name }) else { return nil }
            self = kind
        }
    }

    /// A request for a resource.
    public struct ResourceRequest: Sendable, Hashable {
        public var resource: ResourceKind
        /// 0…``CampLimits/text`` bytes.
        public var text: String

        public init(resource: ResourceKind, text: String) {
            self.resource = resource
            self.text = text
        }
    }

    /// Something happening at a time.
    public struct Event: Sendable, Hashable {
        /// 1…``CampLimits/title`` bytes.
        public var title: String
        /// Start, whole minutes since 1970-01-01 UTC.
        public var startMinute: UInt32
        /// Duration in minutes (0 = unspecified).
        public var durationMinutes: UInt16
        /// 0…``CampLimits/text`` bytes.
        public var text: String

        public init(title: String, startMinute: UInt32, durationMinutes: UInt16, text: String = "") {
            self.title = title
            self.startMinute = startMinute
            self.durationMinutes = durationMinutes
            self.text = text
        }
    }

    /// What an emergency is about.
    public enum EmergencyKind: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case medical = 0, fire = 1, missingPerson = 2, weather = 3, security = 4, other = 5

        public var description: String {
            switch self {
            case .medical: "medical"
            case .fire: "fire"
            case .missingPerson: "missing-person"
            case .weather: "weather"
            case .security: "security"
            case .other: "other"
            }
        }

        public init?(name: String) {
            guard let kind = Self.allCases.first(where: { $0.description == name }) else { return nil }
            self = kind
        }
    }

    /// An emergency alert.
    public struct Emergency: Sendable, Hashable {
        public var emergency: EmergencyKind
        /// 1…``CampLimits/text`` bytes.
        public var text: String
        /// Where help is needed, when known.
        public var position: CampPosition?

        public init(emergency: EmergencyKind, text: String, position: CampPosition?) {
            self.emergency = emergency
            self.text = text
            self.position = position
        }
    }
}
