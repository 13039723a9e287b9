import Foundation
import Sensors

/// One DS18B20 sampling step, pure over the files under ``devicesDirectory`` and an
/// explicit monotonic `now`: finds the probe (the first `28-*` device, sorted), reads
/// and checks its `w1_slave` (CRC verdict, scratchpad CRC, power-on 85 °C value), and
/// keeps the retry back-off of a missing or failing probe.
public struct DS18B20Sampler: Sendable {
    /// What one step found.
    public enum Outcome: Sendable, Equatable {
        /// A checked temperature from the device file at `path`.
        case reading(DS18B20Reading, path: String)
        /// No usable reading; the message names the probe (or directory) and the reason.
        case failure(String)
        /// Backing off after failures: no attempt was made.
        case skipped
    }

    /// Where the w1 bus master lists its devices (`/sys/bus/w1/devices`, or a temp dir in tests).
    public let devicesDirectory: String
    /// Back-off after failures (5 s doubling to 5 min by default).
    public private(set) var backoff: RetryBackoff

    public init(devicesDirectory: String = DS18B20.devicesDirectory, backoff: RetryBackoff = RetryBackoff()) {
        self.devicesDirectory = devicesDirectory
        self.backoff = backoff
    }

    /// Samples the probe at monotonic `now`, unless backing off; `read` reads one device file
    /// (``DS18B20/read(path:)`` by default; the daemon calls it off the async pool).
    public mutating func sample(
        now: Duration, read: (String) throws -> DS18B20Reading = { try DS18B20.read(path: $0) }
    ) -> Outcome {
        guard backoff.mayAttempt(now: now) else { return .skipped }
        guard let path = DS18B20.devicePaths(in: devicesDirectory).first else {
            backoff.recordFailure(at: now)
            return .failure("no DS18B20 (28-*) under \(devicesDirectory)")
        }
        do {
            let reading = try read(path)
            backoff.recordSuccess()
            return .reading(reading, path: path)
        } catch {
            backoff.recordFailure(at: now)
            return .failure("\(error)")
        }
    }

    /// How long to wait before the next step: `interval` while healthy, else until the back-off allows
    /// an attempt (at least 1 s).
    public func delay(after now: Duration, interval: Duration) -> Duration {
        guard let next = backoff.nextAttempt else { return interval }
        return max(next - now, .seconds(1))
    }
}
