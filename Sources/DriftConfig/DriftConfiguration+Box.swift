import Foundation

extension DriftConfiguration {
    /// `[box]`: identity, place and board of this box.
    public struct Box: Sendable, Equatable {
        /// Shown to visitors and to other boxes (1–64 characters).
        public var name: String
        /// Stable box id; `""` means generate one on first start and keep it in the data directory.
        public var id: String
        /// ISO 3166-1 alpha-2 code, uppercase (`DE`). Used for participant labels.
        public var country: String
        /// IANA time zone name (`Europe/Berlin`) for time-of-day conditions.
        public var timezone: String
        /// Board profile name (`rpi4b`) or a path to a profile ending in `.toml`.
        public var board: String
        /// Extra directory to look for board profiles in (relative to the config file); `""` = none.
        public var boardDir: String
        /// Fixed position for a box without GPS (both or neither).
        public var latitude: Double?
        public var longitude: Double?

        /// ``timezone`` as a `TimeZone` (validated at load time).
        public var timeZone: TimeZone {
            TimeZone(identifier: timezone) ?? TimeZone(secondsFromGMT: 0)!
        }

        init(reading r: SectionReader) {
            name = r.string("name") { ConfigChecks.text($0, length: 1...64) }
            id = r.string("id", default: "", check: ConfigChecks.identifier)
            country = r.string("country", check: CountryCodeCheck.problem(with:))
            timezone = r.string("timezone", check: ConfigChecks.timeZone)
            board = r.string("board", check: BoardLocator.nameProblem)
            boardDir = r.string("board_dir", default: "")
            latitude = r.optionalDouble("latitude", min: -90, max: 90)
            longitude = r.optionalDouble("longitude", min: -180, max: 180)
        }
    }
}
