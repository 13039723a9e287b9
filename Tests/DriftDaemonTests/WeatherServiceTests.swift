import DriftCore
import DriftDaemon
import Foundation
import Logging
import Sensors
import ServiceLifecycle
import TestSupport
import Testing

@Suite("Weather sampling from the (simulated) BME280")
struct WeatherServiceTests {
    @Test("readings reach the processor; unplugging is a fault with a reason; replugging clears it")
    func readingsAndUnplug() async throws {
        let weather = SimulatedWeather()
        weather.setOverride(.init(celsius: 21.5, hectopascals: 1002, relativeHumidity: 40))
        let health = HealthRegistry()
        let (inputs, ambient) = AsyncStream<AmbientInput>.makeStream()
        let service = WeatherService(
            device: weather.sensor.device, interval: .milliseconds(50), ambient: ambient, health: health,
            logger: Logger(label: "test"), backoff: RetryBackoff(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(200))
        )
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let first = await collect(3, from: inputs, timeout: .seconds(10))
            var values: [SensorQuantity: Double] = [:]
            for case .reading(let quantity, let reading) in first { values[quantity] = reading.value }
            #expect(abs((values[.temperature] ?? 0) - 21.5) < 0.05)
            #expect(abs((values[.pressure] ?? 0) - 1002) < 0.05)
            #expect(abs((values[.humidity] ?? 0) - 40) < 0.5)

            weather.sensor.isPlugged = false
            var fault: String?
            for _ in 0..<200 where fault == nil {
                fault = health.evaluate().faults[WeatherService.component]
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(fault?.contains("BME280") == true, "\(String(describing: fault))")

            weather.sensor.isPlugged = true
            for _ in 0..<300 where health.evaluate().faults[WeatherService.component] != nil {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(health.evaluate().faults.isEmpty)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test("the daily cycle is warmest in the afternoon and most humid before dawn")
    func dailyCycle() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let day = calendar.date(from: DateComponents(year: 2026, month: 6, day: 1))!
        let dawn = SimulatedWeather.cycle(at: day.addingTimeInterval(3 * 3600), timeZone: zone)
        let afternoon = SimulatedWeather.cycle(at: day.addingTimeInterval(15 * 3600), timeZone: zone)
        #expect(afternoon.celsius > dawn.celsius + 10)
        #expect(dawn.relativeHumidity > afternoon.relativeHumidity)
        #expect((990...1030).contains(dawn.hectopascals))
    }
}
