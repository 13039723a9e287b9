import DriftCore
import DriftSystem
import Foundation
import Hardware
import Logging
import Sensors
import ServiceLifecycle
import Synchronization

/// Samples the BME280 on a schedule and feeds temperature, humidity and
/// pressure to the lifecycle processor (weather conditions).
///
/// A missing or failing sensor is a `sensors` fault (status line, `driftd
/// status`) retried with back-off (5 s doubling to 5 min), never fatal; weather
/// conditions then go stale and report why. On the sim board the sensor is a
/// `SimulatedBME280` whose weather follows a daily cycle unless overridden
/// (`sim.weather`).
public struct WeatherService: Service {
    public static let component = "sensors"

    let device: any I2CDevice
    let interval: Duration
    let ambient: AsyncStream<AmbientInput>.Continuation
    /// Holds the inputs back from the bottle processor while no bottle reads the weather (``AmbientGate``).
    let gate: AmbientGate?
    let health: HealthRegistry
    let logger: Logger
    /// Called before each sample (the simulated world moves its weather along).
    let beforeSample: @Sendable (Date) -> Void
    let initialBackoff: RetryBackoff
    let latest: LatestReadings?
    /// Sampling interval, the sensor's conversion wait and the back-off run on this clock.
    let clock: any Clock<Duration>
    /// The time readings are stamped with.
    let now: @Sendable () -> Date

    public init(
        device: any I2CDevice, interval: Duration = .seconds(30),
        ambient: AsyncStream<AmbientInput>.Continuation, gate: AmbientGate? = nil, health: HealthRegistry, logger: Logger,
        backoff: RetryBackoff = RetryBackoff(), latest: LatestReadings? = nil,
        beforeSample: @escaping @Sendable (Date) -> Void = { _ in },
        clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.clock = clock
        self.now = now
        self.initialBackoff = backoff
        self.latest = latest
        self.device = device
        self.interval = interval
        self.ambient = ambient
        self.gate = gate
        self.health = health
        self.logger = logger
        self.beforeSample = beforeSample
        health.register(Self.component, maximumSilence: nil)
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                try await sampleLoop()
            }
        } catch is CancellationError {}
    }

    private func sampleLoop() async throws {
        let sensor = BME280(device: device)
        var started = false
        var backoff = initialBackoff
        var failing: String?
        let monotonic = MonotonicClock(any: clock)
        while true {
            let delay: Duration
            do {
                if !started {
                    try await sensor.start(clock: clock)
                    started = true
                }
                beforeSample(self.now())
                let reading = try await sensor.measure(clock: clock)
                let now = self.now()
                ambient.yieldWeather(.reading(.temperature, SensorReading(time: now, value: reading.celsius)), through: gate)
                ambient.yieldWeather(.reading(.humidity, SensorReading(time: now, value: reading.relativeHumidity)), through: gate)
                ambient.yieldWeather(.reading(.pressure, SensorReading(time: now, value: reading.hectopascals)), through: gate)
                latest?.record(.init(celsius: reading.celsius, hectopascals: reading.hectopascals, relativeHumidity: reading.relativeHumidity, at: now))
                if failing != nil {
                    logger.notice("BME280 readings are back", metadata: ["bus": "\(device.bus)"])
                    health.setFault(Self.component, nil)
                    failing = nil
                }
                backoff.recordSuccess()
                delay = interval
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                started = false
                let message = "BME280 on \(device.bus) at 0x\(String(device.address, radix: 16)): \(error)"
                if failing != message {
                    logger.error("weather sensor failing; weather bottles stay locked", metadata: ["error": "\(message)"])
                    health.setFault(Self.component, message)
                    failing = message
                }
                backoff.recordFailure(at: monotonic.now())
                delay = backoff.currentDelay
            }
            try await clock.sleep(for: delay)
        }
    }
}

/// The simulated weather of the sim board: a plausible daily cycle (coolest
/// before dawn, warmest mid-afternoon, humidity the other way round, pressure
/// drifting slowly), which `sim.weather` can override or unplug.
public final class SimulatedWeather: Sendable {
    public let sensor: SimulatedBME280
    private let override = Mutex<SimulatedBME280.Conditions?>(nil)

    public init(sensor: SimulatedBME280 = SimulatedBME280()) {
        self.sensor = sensor
    }

    /// Whether fixed conditions replace the daily cycle.
    public var isOverridden: Bool { override.withLock { $0 != nil } }

    /// Sets fixed conditions (`nil` returns to the daily cycle).
    public func setOverride(_ conditions: SimulatedBME280.Conditions?) {
        override.withLock { $0 = conditions }
        if let conditions { sensor.conditions = conditions }
    }

    /// Moves the weather to what it is at `date` in `timeZone`.
    public func advance(to date: Date, timeZone: TimeZone) {
        if let fixed = override.withLock({ $0 }) {
            sensor.conditions = fixed
            return
        }
        sensor.conditions = Self.cycle(at: date, timeZone: timeZone)
    }

    /// The daily cycle's conditions at `date`.
    public static func cycle(at date: Date, timeZone: TimeZone) -> SimulatedBME280.Conditions {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let hours = Double(parts.hour ?? 0) + Double(parts.minute ?? 0) / 60
        // Temperature peaks at 15:00; humidity is highest when it is coolest.
        let phase = (hours - 9) / 24 * 2 * Double.pi
        let celsius = 13 + 7 * sin(phase)
        let humidity = 65 - 20 * sin(phase)
        let days = date.timeIntervalSince1970 / 86_400
        let hectopascals = 1013 + 6 * sin(days / 3 * 2 * Double.pi)
        return SimulatedBME280.Conditions(celsius: celsius, hectopascals: hectopascals, relativeHumidity: humidity)
    }
}
