extension DriftConfiguration {
    /// `[mesh]`: the LoRa mesh network this box belongs to.
    public struct Mesh: Sendable, Equatable {
        /// The 32-byte network key shared by all boxes of one mesh; empty when absent (mesh off).
        public var networkKey: [UInt8]
        /// How many times a frame is relayed at most (0–7).
        public var hopLimit: Int

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
            hopLimit = r.int("hop_limit", default: 3, min: 0, max: 7)
        }
    }
}
