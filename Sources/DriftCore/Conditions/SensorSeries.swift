import Foundation

/// The recent history of one sensor quantity, oldest first.
///
/// Non-finite values are dropped on the way in, so a glitching sensor reads as
/// missing data rather than as a number.
public struct SensorSeries: Sendable, Equatable, Codable {
    public private(set) var readings: [SensorReading]

    public init(_ readings: [SensorReading]) {
        self.readings = readings.filter { $0.value.isFinite }.sorted { $0.time < $1.time }
    }

    /// The newest reading at or before `now`.
    public func latest(atOrBefore now: Date) -> SensorReading? {
        readings.last { $0.time <= now }
    }

    /// The reading closest in time to `target`.
    public func closest(to target: Date) -> SensorReading? {
        readings.min { abs($0.time.timeIntervalSince(target)) < abs($1.time.timeIntervalSince(target)) }
    }
}
