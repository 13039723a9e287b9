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
        // Sampling, the conversion wait and the back-off on a manual clock: the test moves time.
        let clock = ManualClock()
        let service = WeatherService(
            device: weather.sensor.device, interval: .milliseconds(50), ambient: ambient, health: health,
            logger: Logger(label: "test"), backoff: RetryBackoff(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(200)),
            clock: clock
        )
        let received = Gathered<AmbientInput>()
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            tasks.addTask { await received.gather(inputs) }
            #expect(await clock.run(until: { received.count >= 3 }))
            var values: [SensorQuantity: Double] = [:]
            for case .reading(let quantity, let reading) in received.all.prefix(3) { values[quantity] = reading.value }
            #expect(abs((values[.temperature] ?? 0) - 21.5) < 0.05)
            #expect(abs((values[.pressure] ?? 0) - 1002) < 0.05)
            #expect(abs((values[.humidity] ?? 0) - 40) < 0.5)

            weather.sensor.isPlugged = false
            #expect(await clock.run(until: { health.evaluate().faults[WeatherService.component] != nil }))
            let fault = health.evaluate().faults[WeatherService.component]
            #expect(fault?.contains("BME280") == true, "\(String(describing: fault))")

            weather.sensor.isPlugged = true
            #expect(await clock.run(until: { health.evaluate().faults[WeatherService.component] == nil }))
            #expect(health.evaluate().faults.isEmpty)
            await group.triggerGracefulShutdown()
            ambient.finish()
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
