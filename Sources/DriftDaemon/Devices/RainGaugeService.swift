import DriftSystem
import Foundation
import Hardware
import Logging
import Sensors
import ServiceLifecycle

/// Counts the tipping-bucket rain gauge from the edge events of its GPIO line
/// (`rain.line`) and publishes each tip to the lifecycle processor
/// (``AmbientInput/rainTip(at:)``), which keeps the history the rain condition reads.
///
/// The reed switch is wired to ground with the internal pull-up, so the line is
/// requested `activeLow` with `.pullUp`: the switch closing is a rising (active) edge.
/// Contact bounce is filtered by ``RainGauge`` (edges within 50 ms of the previous
/// one are ignored). A line that cannot be requested is a `rain` fault retried with
/// back-off, never fatal; until it is requested the rain condition stays unknown.
public struct RainGaugeService: Service {
    public static let component = "rain"

    let chip: GPIOChip
    let line: String
    let millimetresPerTip: Double
    let bounceWindow: Duration
    let ambient: AsyncStream<AmbientInput>.Continuation
    /// Holds the inputs back from the bottle processor while no bottle reads the weather (``AmbientGate``).
    let gate: AmbientGate?
    let health: HealthRegistry
    let logger: Logger
    let initialBackoff: RetryBackoff
    /// The back-off waits and the edges' time scale (edges are stamped on the monotonic clock).
    let clock: MonotonicClock

    /// - Parameters:
    ///   - line: the line name of the reed switch.
    ///   - millimetresPerTip: positive (validated by the config).
    public init(
        chip: GPIOChip, line: String, millimetresPerTip: Double = RainGauge.defaultMillimetresPerTip,
        bounceWindow: Duration = RainGauge.defaultBounceWindow,
        ambient: AsyncStream<AmbientInput>.Continuation, gate: AmbientGate? = nil, health: HealthRegistry, logger: Logger,
        backoff: RetryBackoff = RetryBackoff(), clock: MonotonicClock = .system
    ) {
        self.chip = chip
        self.line = line
        self.millimetresPerTip = millimetresPerTip
        self.bounceWindow = bounceWindow
        self.ambient = ambient
        self.gate = gate
        self.health = health
        self.logger = logger
        self.initialBackoff = backoff
        self.clock = clock
        health.register(Self.component, maximumSilence: nil)
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await requestAndCount() }
        } catch is CancellationError {}
    }

    private func requestAndCount() async throws {
        var backoff = initialBackoff
        while true {
            let request: GPIOInputRequest
            do {
                request = try chip.requestInput(named: [line], consumer: "driftd-rain", bias: .pullUp, activeLow: true)
            } catch {
                let message = "rain gauge line \(line): \(error)"
                if backoff.failures == 0 {
                    logger.error("rain gauge line unavailable; rain bottles stay locked", metadata: ["line": "\(line)", "error": "\(error)"])
                }
                health.setFault(Self.component, message)
                backoff.recordFailure(at: clock.now())
                try await clock.sleep(for: backoff.currentDelay)
                continue
            }
            defer { request.release() }
            if backoff.failures > 0 { logger.notice("rain gauge line requested", metadata: ["line": "\(line)"]) }
            backoff.recordSuccess()
            health.setFault(Self.component, nil)
            ambient.yieldWeather(.rainGaugeStarted(at: Date(), millimetresPerTip: millimetresPerTip), through: gate)
            var gauge = RainGauge(millimetresPerTip: millimetresPerTip, bounceWindow: bounceWindow)
            do {
                for try await event in request.events() {
                    guard gauge.record(event) else { continue }
                    ambient.yieldWeather(.rainTip(at: Self.wallTime(of: event.timestamp, now: clock.now())), through: gate)
                    logger.debug("rain gauge tip", metadata: ["tips": "\(gauge.totalTips)", "ignored": "\(gauge.ignoredEdges)"])
                }
                return
            } catch {
                // The line went away (chip unplugged, released): report and request it again.
                health.setFault(Self.component, "rain gauge line \(line): \(error)")
                logger.error("rain gauge events ended", metadata: ["line": "\(line)", "error": "\(error)"])
                backoff.recordFailure(at: clock.now())
                try await clock.sleep(for: backoff.currentDelay)
            }
        }
    }

    /// The wall-clock time of a monotonic edge timestamp (never in the future).
    static func wallTime(of timestamp: Duration, now: Duration = MonotonicTime.now(), wallNow: Date = Date()) -> Date {
        let age = max(now - timestamp, .zero)
        return wallNow.addingTimeInterval(-Double(age.components.seconds) - Double(age.components.attoseconds) / 1e18)
    }
}
