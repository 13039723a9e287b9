extension DriftConfiguration {
    /// `[meshtastic]`: how the box uses a Meshtastic node (with `radio.kind = "meshtastic"`).
    public struct Meshtastic: Sendable, Equatable {
        /// The channel index (0–7) our mesh frames ride.
        public var channel: Int
        /// Meshtastic's hop limit for our frames (0–7): Meshtastic relays them, our own
        /// mesh hop limit is 0 on this radio.
        public var hopLimit: Int
        /// The channel (0–7) camp beacons and bottle notices are published on as plain
        /// text, or -1 to publish nothing.
        public var textChannel: Int

        /// ``textChannel`` as an optional: `nil` = do not publish.
        public var publishedTextChannel: Int? { textChannel >= 0 ? textChannel : nil }

        init(reading r: SectionReader) {
            channel = r.int("channel", default: 0, min: 0, max: 7)
            hopLimit = r.int("hop_limit", default: 3, min: 0, max: 7)
            textChannel = r.int("text_channel", default: 0, min: -1, max: 7)
        }
    }
}
