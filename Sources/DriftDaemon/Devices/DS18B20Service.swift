import DriftCore
import DriftSystem
import Foundation
import Logging
import Sensors
import ServiceLifecycle

/// Samples an optional DS18B20 1-Wire probe (`[onewire] ds18b20 = true`) on the weather
/// schedule (`i2c.sample_interval_s`).
///
/// The reading is published to the lifecycle processor as the box's **temperature** only
/// when the box has no BME280 (`publishAsTemperature`); with a BME280 the BME280 stays the
/// temperature the conditions read and the probe is its own reading (``LatestReadings``,
/// `driftd status`), so two sensors in different places never mix in one history.
/// A missing or failing probe (no `28-*` device, CRC failure, power-on 85 °C) is a
/// `onewire` fault retried with back-off (5 s doubling to 5 min), never fatal.
public struct DS18B20Service: Service {
    public static let component = "onewire"

    let devicesDirectory: String
    let interval: Duration
    let publishAsTemperature: Bool
    let ambient: AsyncStream<AmbientInput>.Continuation
    /// Holds the inputs back from the bottle processor while no bottle reads the weather (``AmbientGate``).
    let gate: AmbientGate?
    let health: HealthRegistry
    let logger: Logger
    /// The probe is read here (each read blocks while the sensor converts).
    private let lane = BlockingLane(name: "ds18b20")
    let latest: LatestReadings?
    let initialBackoff: RetryBackoff
    /// Sampling interval and back-off run on this clock.
    let clock: MonotonicClock

    public init(
        devicesDirectory: String = DS18B20.devicesDirectory, interval: Duration = .seconds(30), publishAsTemperature: Bool,
        ambient: AsyncStream<AmbientInput>.Continuation, gate: AmbientGate? = nil, health: HealthRegistry, logger: Logger,
        latest: LatestReadings? = nil, backoff: RetryBackoff = RetryBackoff(), clock: MonotonicClock = .system
    ) {
        self.clock = clock
        self.devicesDirectory = devicesDirectory
        self.interval = interval
        self.publishAsTemperature = publishAsTemperature
        self.ambient = ambient
        self.gate = gate
        self.health = health
        self.logger = logger
        self.latest = latest
        self.initialBackoff = backoff
        health.register(Self.component, maximumSilence: nil)
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await sampleLoop() }
        } catch is CancellationError {}
    }

    private func sampleLoop() async throws {
        var sampler = DS18B20Sampler(devicesDirectory: devicesDirectory, backoff: initialBackoff)
        var failing: String?
        while true {
            let now = clock.now()
            let outcome: DS18B20Sampler.Outcome
            // Reading w1_slave makes the kernel convert (~750 ms): on the probe's own thread, not the
            // async pool nor Dispatch's shared threads (which the readiness monitors' sources use).
            (outcome, sampler) = await lane.run { [sampler] in
                var copy = sampler
                return (copy.sample(now: now), copy)
            }
            handle(outcome, failing: &failing)
            try await clock.sleep(for: sampler.delay(after: clock.now(), interval: interval))
        }
    }

    /// Publishes a reading or reports a failure (once per distinct message).
    func handle(_ outcome: DS18B20Sampler.Outcome, failing: inout String?, at date: Date = Date()) {
        switch outcome {
        case .reading(let reading, let path):
            if publishAsTemperature {
                ambient.yieldWeather(.reading(.temperature, SensorReading(time: date, value: reading.celsius)), through: gate)
            }
            latest?.recordProbe(.init(celsius: reading.celsius, at: date))
            if failing != nil {
                logger.notice("DS18B20 readings are back", metadata: ["path": "\(path)"])
                health.setFault(Self.component, nil)
                failing = nil
            }
        case .failure(let message):
            if failing != message {
                logger.error("DS18B20 probe failing", metadata: ["error": "\(message)"])
                health.setFault(Self.component, message)
                failing = message
            }
        case .skipped:
            break
        }
    }
}
