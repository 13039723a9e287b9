import Foundation

/// One sensor reading.
public struct SensorReading: Sendable, Equatable, Codable {
    public var time: Date
    public var value: Double
    public init(time: Date, value: Double) {
        self.time = time
        self.value = value
    }
}
