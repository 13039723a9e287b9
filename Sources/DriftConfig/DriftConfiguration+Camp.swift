extension DriftConfiguration {
    /// `[camp]`: this box as a camp of the multi-camp protocol (`docs/camps.md`).
    public struct Camp: Sendable, Equatable {
        /// The camp's name, at most 32 UTF-8 bytes; empty: this box is no camp (it still
        /// listens to camps and keeps the directory, but announces nothing).
        public var name: String
        /// How many people the camp has (0–65535), as announced.
        public var members: Int
        /// A short note sent with every announce (at most 64 UTF-8 bytes).
        public var note: String
        /// Seconds between announces (60–86400), ±10 % jitter; `nil` (left out): by the channel's
        /// duty cycle (`CampSettings.announceInterval(dutyCycle:forgetAfter:)`: 300 s, 3 000 s in
        /// a 1 % sub-band).
        public var announceIntervalS: Int?
        /// Camps not heard for this many hours are forgotten (1–720).
        public var forgetAfterH: Int
        /// When non-zero, overrides ``forgetAfterH`` in seconds (10–2592000; for tests and field trials).
        public var forgetAfterS: Int
        /// How many hops camp traffic travels at most (0–7): camps "nearby". Emergencies travel
        /// three hops further, at most 7. Apart from `mesh.hop_limit` (7, for bottles and their
        /// chat): every camp announces every few minutes, and each hop costs every battery kit
        /// on the way airtime.
        public var hopLimit: Int
        /// Run as a beacon kit: no visitor page, no metrics endpoint, a slow housekeeping tick.
        public var beaconKit: Bool
        /// Also publish camp messages as plain text lines on a Meshtastic channel when the
        /// radio is a Meshtastic node (`CampService`'s text hook).
        public var meshtasticText: Bool

        /// How long an unheard camp stays in the directory.
        public var forgetAfter: Duration {
            forgetAfterS > 0 ? .seconds(forgetAfterS) : .seconds(forgetAfterH * 3_600)
        }

        /// Whether this box announces itself.
        public var isCamp: Bool { !name.isEmpty }

        init(reading r: SectionReader) {
            name = r.string("name", default: "") { Self.textProblem($0, maxBytes: 32) }
            members = r.int("members", default: 0, min: 0, max: 65_535)
            note = r.string("note", default: "") { Self.textProblem($0, maxBytes: 64) }
            announceIntervalS = r.optionalInt("announce_interval_s", min: 60, max: 86_400)
            forgetAfterH = r.int("forget_after_h", default: 24, min: 1, max: 720)
            forgetAfterS = r.int("forget_after_s", default: 0) { value in
                value == 0 || (10...2_592_000).contains(value) ? nil
                    : ValueProblem("must be 0 (use forget_after_h) or 10 to 2592000 seconds, found \(value)")
            }
            hopLimit = r.int("hop_limit", default: 3, min: 0, max: 7)
            beaconKit = r.bool("beacon_kit", default: false)
            meshtasticText = r.bool("meshtastic_text", default: false)
        }

        static func textProblem(_ text: String, maxBytes: Int) -> ValueProblem? {
            if text.utf8.count > maxBytes {
                return ValueProblem("must be at most \(maxBytes) UTF-8 bytes, found \(text.utf8.count)")
            }
            if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                return ValueProblem("must not contain control characters")
            }
            return nil
        }
    }
}
