/// Opens between two wall-clock times in the box's time zone; may cross midnight.
///
/// `start` is inclusive and `end` exclusive, in minutes after local midnight
/// (0–1439). `22:00–04:00` is `start 1320, end 240` and holds from 22:00 until
/// 03:59 the next morning. On DST days the wall clock decides (a window inside
/// the skipped hour never opens that day).
public struct TimeOfDayWindow: Sendable, Equatable, Hashable, Codable {
    public var startMinute: Int
    public var endMinute: Int

    public init(startMinute: Int, endMinute: Int) {
        self.startMinute = startMinute
        self.endMinute = endMinute
    }

    /// `TimeOfDayWindow(start: (22, 0), end: (4, 0))`.
    public init(start: (hour: Int, minute: Int), end: (hour: Int, minute: Int)) {
        self.init(startMinute: start.hour * 60 + start.minute, endMinute: end.hour * 60 + end.minute)
    }

    /// Whether `minuteOfDay` lies in the window.
    public func contains(minuteOfDay minute: Int) -> Bool {
        startMinute < endMinute
            ? (minute >= startMinute && minute < endMinute)
            : (minute >= startMinute || minute < endMinute)
    }

    /// Whether the window wraps past midnight.
    public var crossesMidnight: Bool { endMinute < startMinute }

    func validate() throws(DomainValidationError) {
        guard (0..<1440).contains(startMinute), (0..<1440).contains(endMinute) else {
            throw DomainValidationError(field: "timeOfDay", value: "\(startMinute)–\(endMinute)",
                                        problem: "times must be between 00:00 and 23:59")
        }
        guard startMinute != endMinute else {
            throw DomainValidationError(field: "timeOfDay", value: Text.clock(minuteOfDay: startMinute),
                                        problem: "start and end must differ")
        }
    }
}
