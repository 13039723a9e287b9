import DriftCore
import DriftDaemon
import DriftStore
import DriftSystem
import Foundation
import Hardware
import Logging
import Sensors
import ServiceLifecycle
import TestSupport
import Testing

@Suite("Rain gauge on the simulated chip")
struct RainGaugeServiceTests {
    func makeChip() throws -> (SimulatedGPIODriver, GPIOChip) {
        let driver = SimulatedGPIODriver()
        _ = driver.addChip(name: "gpiochip0", label: "drift-sim", lineNames: ["rain", "led-status"])
        return (driver, try GPIOChip.open("drift-sim", driver: driver))
    }

    func tips(_ inputs: [AmbientInput]) -> [Date] {
        inputs.compactMap { if case .rainTip(let at) = $0 { return at } else { return nil } }
    }

    @Test("tips under contact chatter count exactly, with the configured bucket size")
    func chatterCountsExactly() async throws {
        let (driver, chip) = try makeChip()
        let (inputs, ambient) = AsyncStream<AmbientInput>.makeStream()
        let health = HealthRegistry()
        let service = RainGaugeService(chip: chip, line: "rain", millimetresPerTip: 0.5, ambient: ambient, health: health, logger: Logger(label: "test"))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        var iterator = inputs.makeAsyncIterator()
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let started = await iterator.next()
            guard case .rainGaugeStarted(_, let perTip) = started else {
                Issue.record("expected rainGaugeStarted first, got \(String(describing: started))")
                return
            }
            #expect(perTip == 0.5)
            // Five tips 600 ms apart, each closing with bursts of chatter within 30 ms.
            let base = MonotonicTime.now()
            for tip in 0..<5 {
                let t = base + .milliseconds(600 * tip)
                for (offset, closed) in [(0, true), (3, false), (5, true), (8, false), (10, true), (30, false), (33, true), (36, false)] {
                    try driver.drive(line: "rain", to: closed ? false : nil, at: t + .milliseconds(offset))
                }
            }
            var received: [AmbientInput] = []
            for _ in 0..<5 {
                guard let input = await iterator.next() else { break }
                received.append(input)
            }
            #expect(tips(received).count == 5)
            #expect(health.evaluate().faults.isEmpty)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        ambient.finish()
        var rest: [AmbientInput] = []
        while let input = await iterator.next() { rest.append(input) }
        #expect(tips(rest).isEmpty, "no more tips than bucket movements: \(rest)")
    }

    @Test("a line that cannot be requested is a rain fault, not the end of the daemon")
    func missingLineIsAFault() async throws {
        let (_, chip) = try makeChip()
        let (_, ambient) = AsyncStream<AmbientInput>.makeStream()
        let health = HealthRegistry()
        let clock = ManualClock()
        let service = RainGaugeService(chip: chip, line: "no-such-line", ambient: ambient, health: health, logger: Logger(label: "test"),
                                       backoff: RetryBackoff(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(40)),
                                       clock: MonotonicClock(clock, start: .seconds(100)))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(await clock.run(until: { health.evaluate().faults[RainGaugeService.component] != nil }))
            let fault = health.evaluate().faults[RainGaugeService.component]
            #expect(fault?.contains("no-such-line") == true, "\(String(describing: fault))")
            // Still running (retrying) after several back-off rounds: each round sleeps again.
            for _ in 0..<5 {
                await clock.waitForSleepers(1)
                clock.advanceToNextDeadline()
            }
            await clock.waitForSleepers(1)
            #expect(health.evaluate().faults[RainGaugeService.component] != nil)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test("a rain-conditioned bottle opens after simulated tips (sim.rain through the processor)")
    func rainOpensBottle() async throws {
        let harness = try await BottlesHarness()
        defer { harness.remove() }
        let (driver, chip) = try makeChip()
        let (inputs, ambient) = AsyncStream<AmbientInput>.makeStream()
        let service = RainGaugeService(chip: chip, line: "rain", ambient: ambient, health: HealthRegistry(), logger: Logger(label: "test"))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        let id = BottlesFixtures.bottleID(7)
        // At least 0.5 mm in the last 30 minutes: two tips of 0.2794 mm.
        try harness.create(id, conditions: [BottleCondition(.weather(.rain(RainCondition(withinMinutes: 30, minimumMillimetres: 0.5))))],
                           at: Date().addingTimeInterval(-3600))
        var iterator = inputs.makeAsyncIterator()
        let rain = SimulatedRainGauge(driver: driver, line: "rain")
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let started = try #require(await iterator.next())
            _ = await harness.processor.ingest(started, now: Date())
            #expect(try harness.store.bottle(id)?.state == .locked)

            try rain.tip(1)
            let first = try #require(await iterator.next())
            #expect(await harness.processor.ingest(first, now: Date()).transitions.isEmpty, "0.28 mm is not enough")

            try rain.tip(1)
            let second = try #require(await iterator.next())
            let report = await harness.processor.ingest(second, now: Date())
            #expect(report.transitions.map(\.trigger) == [.conditionsMet])
            #expect(try harness.store.bottle(id)?.state == .openable)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    @Test("the processor's rain history uses the gauge's bucket size")
    func bucketSizeReachesCondition() {
        var state = AmbientState()
        let start = BottlesFixtures.start
        state.ingest(.rainGaugeStarted(at: start, millimetresPerTip: 0.5))
        state.ingest(.rainTip(at: start.addingTimeInterval(60)))
        #expect(state.weather.rainGauge?.millimetres(inLast: 600, before: start.addingTimeInterval(120)) == 0.5)
    }
}
