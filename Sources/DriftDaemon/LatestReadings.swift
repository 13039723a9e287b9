import Foundation
import Synchronization

/// The latest weather reading, for `driftd status` (the lifecycle processor keeps the history).
public final class LatestReadings: Sendable {
    public struct Weather: Codable, Sendable, Equatable {
        public var celsius: Double
        public var hectopascals: Double
        public var relativeHumidity: Double
        public var at: Date
    }

    private let weather = Mutex<Weather?>(nil)

    public init() {}

    public func record(_ reading: Weather) {
        weather.withLock { $0 = reading }
    }

    public var latestWeather: Weather? { weather.withLock { $0 } }
}
