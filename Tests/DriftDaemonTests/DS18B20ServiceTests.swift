import DriftCore
import DriftDaemon
import DriftSystem
import Foundation
import Logging
import Sensors
import ServiceLifecycle
import TestSupport
import Testing

@Suite("DS18B20 probe from w1_slave files in a temp dir")
struct DS18B20ServiceTests {
    /// The text the w1-therm driver shows for `scratchpad` (CRC byte computed) and `milliCelsius`.
    static func w1Slave(_ firstEight: [UInt8], verdict: String = "YES", milliCelsius: Int) -> String {
        let bytes = firstEight + [DS18B20.crc8(firstEight)]
        let hex = bytes.map { String(format: "%02x", $0) }.joined(separator: " ")
        return "\(hex) : crc=\(String(format: "%02x", bytes[8])) \(verdict)\n\(hex) t=\(milliCelsius)\n"
    }

    static let good = w1Slave([0x72, 0x01, 0x4B, 0x46, 0x7F, 0xFF, 0x0E, 0x10], milliCelsius: 23_125)
    static let badCRC = w1Slave([0x72, 0x01, 0x4B, 0x46, 0x7F, 0xFF, 0x0E, 0x10], verdict: "NO", milliCelsius: 23_125)
    static let powerOn = w1Slave([0x50, 0x05, 0x4B, 0x46, 0x7F, 0xFF, 0x0C, 0x10], milliCelsius: 85_000)

    func makeProbe(_ text: String, in directory: TemporaryDirectory, id: String = "28-0316a2793cff") throws {
        let device = directory.appending(id)
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        try text.write(toFile: "\(device)/w1_slave", atomically: true, encoding: .utf8)
    }

    @Test("a good probe reads 23.125 °C")
    func goodProbe() throws {
        let directory = try TemporaryDirectory(prefix: "w1")
        defer { directory.remove() }
        // Another family (a DS2413) is not a thermometer and is skipped.
        try FileManager.default.createDirectory(atPath: directory.appending("3a-000000123456"), withIntermediateDirectories: true)
        try makeProbe(Self.good, in: directory)
        var sampler = DS18B20Sampler(devicesDirectory: directory.path)
        let outcome = sampler.sample(now: .seconds(10))
        guard case .reading(let reading, let path) = outcome else {
            Issue.record("expected a reading, got \(outcome)")
            return
        }
        #expect(reading.celsius == 23.125)
        #expect(path.hasSuffix("28-0316a2793cff/w1_slave"))
        #expect(sampler.delay(after: .seconds(10), interval: .seconds(30)) == .seconds(30))
    }

    @Test("bad CRC, power-on 85 °C and a missing probe are failures retried with back-off")
    func failures() throws {
        let directory = try TemporaryDirectory(prefix: "w1")
        defer { directory.remove() }
        var sampler = DS18B20Sampler(devicesDirectory: directory.path, backoff: RetryBackoff(initialDelay: .seconds(5), maximumDelay: .seconds(60)))

        // Missing: no 28-* device at all.
        var outcome = sampler.sample(now: .seconds(0))
        #expect(outcome == .failure("no DS18B20 (28-*) under \(directory.path)"))
        #expect(sampler.sample(now: .seconds(4)) == .skipped, "backing off for 5 s")
        #expect(sampler.delay(after: .seconds(4), interval: .seconds(30)) == .seconds(1))

        try makeProbe(Self.badCRC, in: directory)
        outcome = sampler.sample(now: .seconds(5))
        guard case .failure(let crc) = outcome else { Issue.record("expected a failure, got \(outcome)"); return }
        #expect(crc.contains("CRC"), "\(crc)")
        #expect(sampler.backoff.failures == 2)
        #expect(sampler.sample(now: .seconds(14)) == .skipped, "then 10 s")

        try makeProbe(Self.powerOn, in: directory)
        outcome = sampler.sample(now: .seconds(15))
        guard case .failure(let reset) = outcome else { Issue.record("expected a failure, got \(outcome)"); return }
        #expect(reset.contains("85"), "\(reset)")

        try makeProbe(Self.good, in: directory)
        #expect(sampler.sample(now: .seconds(34)) == .skipped)
        guard case .reading = sampler.sample(now: .seconds(35)) else { Issue.record("the probe is back"); return }
        #expect(sampler.backoff.failures == 0)
    }

    @Test("the service publishes temperature only without a BME280, records the probe, and reports faults")
    func service() async throws {
        let directory = try TemporaryDirectory(prefix: "w1")
        defer { directory.remove() }
        try makeProbe(Self.good, in: directory)
        for publish in [true, false] {
            let (inputs, ambient) = AsyncStream<AmbientInput>.makeStream()
            let health = HealthRegistry()
            let latest = LatestReadings()
            let clock = ManualClock()
            let service = DS18B20Service(devicesDirectory: directory.path, interval: .milliseconds(50), publishAsTemperature: publish,
                                         ambient: ambient, health: health, logger: Logger(label: "test"), latest: latest,
                                         backoff: RetryBackoff(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(50)),
                                         clock: MonotonicClock(clock, start: .seconds(100)))
            let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                #expect(await clock.run(until: { latest.latestProbe != nil }))
                #expect(latest.latestProbe?.celsius == 23.125)
                if publish {
                    let first = await collect(1, from: inputs, timeout: .seconds(30))
                    guard case .reading(.temperature, let reading)? = first.first else { Issue.record("no temperature: \(first)"); return }
                    #expect(reading.value == 23.125)
                }
                try makeProbe(Self.badCRC, in: directory)
                #expect(await clock.run(until: { health.evaluate().faults[DS18B20Service.component] != nil }))
                let fault = health.evaluate().faults[DS18B20Service.component]
                #expect(fault?.contains("CRC") == true, "\(String(describing: fault))")
                try makeProbe(Self.good, in: directory)
                #expect(await clock.run(until: { health.evaluate().faults[DS18B20Service.component] == nil }))
                #expect(health.evaluate().faults.isEmpty)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            ambient.finish()
            if !publish {
                var temperatures = 0
                for await case .reading(.temperature, _) in inputs { temperatures += 1 }
                #expect(temperatures == 0, "with a BME280 the probe is its own reading")
            }
        }
    }
}
