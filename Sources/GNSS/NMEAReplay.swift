/// A capture split into receiver cycles for real-time replay (the simulated receiver's
/// `sim.nmea_replay`).
///
/// A cycle is the lines from one time stamp (GGA, RMC, GLL, GNS or ZDA time of day) to
/// the line before the next different one. Lines that do not frame (comments, junk) stay
/// in their cycle and are replayed verbatim. ``delay(from:to:)`` paces the cycles by the
/// capture's own time stamps.
public enum NMEAReplay {
    /// One receiver cycle of a capture.
    public struct Cycle: Sendable, Equatable {
        /// The lines, each with its line end.
        public var bytes: [UInt8]
        /// The cycle's time of day, `nil` when none of its lines carried one.
        public var timeOfDay: NMEATimeOfDay?
    }

    /// The pause used when the capture does not say (no time stamps), and the largest
    /// gap replayed as it is (a longer one is a capture pause or a receiver restart).
    public static let defaultInterval = Duration.seconds(1)
    public static let maximumInterval = Duration.seconds(10)

    /// Splits `data` at line ends (LF) into cycles.
    public static func cycles(of data: [UInt8]) -> [Cycle] {
        var cycles: [Cycle] = []
        var current = Cycle(bytes: [], timeOfDay: nil)
        var start = 0
        func line(_ range: Range<Int>) {
            let bytes = data[range]
            let time = timeOfDay(String(decoding: bytes, as: UTF8.self))
            if let time {
                if let key = current.timeOfDay, key != time {
                    cycles.append(current)
                    current = Cycle(bytes: [], timeOfDay: time)
                } else if current.timeOfDay == nil {
                    current.timeOfDay = time
                }
            }
            current.bytes += bytes
        }
        for index in data.indices where data[index] == UInt8(ascii: "\n") {
            line(start..<(index + 1))
            start = index + 1
        }
        if start < data.count { line(start..<data.count) }
        if !current.bytes.isEmpty { cycles.append(current) }
        return cycles
    }

    /// The pause between a cycle stamped `from` and the next stamped `to`: their
    /// difference (across midnight too), or ``defaultInterval`` when either is unknown, they
    /// are equal, or the gap exceeds ``maximumInterval``.
    public static func delay(from: NMEATimeOfDay?, to: NMEATimeOfDay?) -> Duration {
        guard let from, let to else { return defaultInterval }
        var milliseconds = to.milliseconds - from.milliseconds
        if milliseconds < 0 { milliseconds += 86_400_000 }
        let delay = Duration.milliseconds(milliseconds)
        guard delay > .zero, delay <= maximumInterval else { return defaultInterval }
        return delay
    }

    /// The time of day a sentence line carries (GGA, RMC, GNS, ZDA field 1; GLL field 5).
    static func timeOfDay(_ line: String) -> NMEATimeOfDay? {
        guard let sentence = NMEASentence.parse(line), !sentence.isProprietary else { return nil }
        let field: Substring
        switch sentence.type {
        case "GGA", "RMC", "GNS", "ZDA": field = sentence[1]
        case "GLL": field = sentence[5]
        default: return nil
        }
        return NMEATimeOfDay(field)
    }
}
