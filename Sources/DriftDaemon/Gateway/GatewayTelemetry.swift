import Foundation

/// The JSON a box publishes on `telemetry/{node}` every `mqtt.telemetry_interval_s`.
public struct GatewayTelemetry: Sendable, Codable, Equatable {
    public struct Fix: Sendable, Codable, Equatable {
        public var latitude: Double
        public var longitude: Double
        public var at: Date?
    }

    public struct Mesh: Sendable, Codable, Equatable {
        public var neighbours: Int
        public var airtimeUsedPercent: Double
        public var channelUtilisationPercent: Double
        public var heard: Int
        public var delivered: Int
        public var forged: Int
        public var duplicates: Int
        public var outboxQueued: Int
    }

    public var box: String
    public var node: String
    public var name: String
    public var at: Date
    public var forwarder: Bool
    public var fix: Fix?
    public var sensors: LatestReadings.Weather?
    public var bottles: [String: Int]
    public var mesh: Mesh?
    public var faults: [String: String]
    public var gateway: GatewayCounters

    /// Where the telemetry's figures come from (closures, so the gateway stays decoupled from services).
    public struct Sources: Sendable {
        public var boxID: String
        public var name: String
        public var fix: @Sendable () -> Fix?
        public var sensors: @Sendable () -> LatestReadings.Weather?
        public var bottles: @Sendable () -> [String: Int]
        public var faults: @Sendable () -> [String: String]

        public init(boxID: String, name: String, fix: @escaping @Sendable () -> Fix? = { nil },
                    sensors: @escaping @Sendable () -> LatestReadings.Weather? = { nil },
                    bottles: @escaping @Sendable () -> [String: Int] = { [:] },
                    faults: @escaping @Sendable () -> [String: String] = { [:] }) {
            self.boxID = boxID
            self.name = name
            self.fix = fix
            self.sensors = sensors
            self.bottles = bottles
            self.faults = faults
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()

    public func encoded() -> [UInt8] {
        (try? Array(Self.encoder.encode(self))) ?? []
    }
}
