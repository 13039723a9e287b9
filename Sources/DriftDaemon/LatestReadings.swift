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

    /// A DS18B20 probe's temperature.
    public struct Probe: Codable, Sendable, Equatable {
        public var celsius: Double
        public var at: Date
    }

    private let weather = Mutex<Weather?>(nil)
    private let probe = Mutex<Probe?>(nil)

    public init() {}

    public func record(_ reading: Weather) {
        weather.withLock { $0 = reading }
    }

    public var latestWeather: Weather? { weather.withLock { $0 } }

    public func recordProbe(_ reading: Probe) {
        probe.withLock { $0 = reading }
    }

    /// The latest DS18B20 reading, if a probe is configured and answered.
    public var latestProbe: Probe? { probe.withLock { $0 } }
}
