extension DriftConfiguration {
    /// `[mesh]`: the LoRa mesh network this box belongs to.
    public struct Mesh: Sendable, Equatable {
        /// The 32-byte network key shared by all boxes of one mesh; empty when absent (mesh off).
        public var networkKey: [UInt8]
        /// How many times a frame is relayed at most (0–7).
        public var hopLimit: Int
        /// Seconds between this box's hello beacons (neighbour discovery and catch-up); `nil`
        /// (left out): by the channel's duty cycle (`MeshRouterConfiguration.helloPeriod(dutyCycle:)`:
        /// 300 s, 900 s in a 1 % sub-band).
        public var helloIntervalS: Int?
        /// How long a message this box sends stays deliverable (store-and-forward), hours.
        public var messageLifetimeH: Int
        /// Packets held for store-and-forward and reconciliation, at most.
        public var holdPackets: Int
        /// Paced repair while the mesh stays up: a Trickle-timed compact digest of what the box
        /// got lately, so a box that missed a packet gets it from a neighbour within minutes
        /// (docs/mesh.md, "Catch-up").
        public var pacedRepair: Bool
        /// Relays planned on the whole topology: the box floods its neighbour list as a topology
        /// advert (a few an hour at most, one every 36 hello periods when nothing changes) and
        /// relays a broadcast when the plan every box computes alike from the adverts names it;
        /// off by default (docs/mesh-routing.md, "Relays planned on the topology").
        public var topologyPlan: Bool

        /// The published test key of `board/sim.toml` (base64 of "drift-sim-test-key-do-not-deploy").
        public static let simulatorTestKey = "ZHJpZnQtc2ltLXRlc3Qta2V5LWRvLW5vdC1kZXBsb3k="
        /// The published placeholder of the real board profiles (base64 of "CHANGE-ME-drift-default-mesh-key").
        public static let placeholderKey = "Q0hBTkdFLU1FLWRyaWZ0LWRlZmF1bHQtbWVzaC1rZXk="

        /// True when the key is one of the two published keys: anyone can forge frames; log a warning.
        public var usesPublishedKey: Bool {
            [Self.simulatorTestKey, Self.placeholderKey].contains { ConfigChecks.networkKey($0) == .success(networkKey) }
        }

        init(reading r: SectionReader) {
            var key: [UInt8] = []
            _ = r.string("network_key", default: "") { text in
                if text.isEmpty { return nil }
                switch ConfigChecks.networkKey(text) {
                case .success(let bytes):
                    key = bytes
                    return nil
                case .failure(let problem):
                    return problem
                }
            }
            networkKey = key
            // 7, the header's maximum: the router prunes relays on coverage, so a frame goes as
            // far as the mesh reaches without flooding it (docs/mesh-routing.md, "Hop limit").
            hopLimit = r.int("hop_limit", default: 7, min: 0, max: 7)
            helloIntervalS = r.optionalInt("hello_interval_s", min: 1, max: 86_400)
            messageLifetimeH = r.int("message_lifetime_h", default: 72, min: 1, max: 720)
            holdPackets = r.int("hold_packets", default: 5_000, min: 100, max: 1_000_000)
            pacedRepair = r.bool("paced_repair", default: true)
            topologyPlan = r.bool("topology_plan", default: false)
        }
    }
}
