import Hardware
import Sensors
import Testing

@Suite("BME280 driver")
struct BME280DriverTests {
    @Test func startsAndMeasuresSimulatedChip() async throws {
        let chip = SimulatedBME280(conditions: .init(celsius: 21.5, hectopascals: 1008.4, relativeHumidity: 63))
        let sensor = BME280(device: chip.device)
        try await sensor.start(clock: ContinuousClock())
        #expect(sensor.calibration == SimulatedBME280.typicalCalibration)
        // Soft reset was written, configuration ends in sleep mode.
        #expect(chip.device[BME280.Register.ctrlMeas] & 0x03 == 0)
        #expect(chip.device[BME280.Register.ctrlHum] == 1)
        let reading = try await sensor.measure(clock: ContinuousClock())
        #expect(abs(reading.celsius - 21.5) <= 0.01)
        #expect(abs(reading.hectopascals - 1008.4) <= 0.01)
        #expect(abs(reading.relativeHumidity - 63) <= 0.01)
        #expect(chip.measurements == 1)

        chip.conditions = .init(celsius: -12.25, hectopascals: 962, relativeHumidity: 91.5)
        let second = try await sensor.measure(clock: ContinuousClock())
        #expect(abs(second.celsius + 12.25) <= 0.01)
        #expect(abs(second.hectopascals - 962) <= 0.01)
        #expect(abs(second.relativeHumidity - 91.5) <= 0.01)
    }

    @Test func absentChipIsNoDevice() {
        let chip = SimulatedBME280(bus: "/dev/i2c-1", address: 0x77)
        chip.isPlugged = false
        let sensor = BME280(device: chip.device)
        #expect(throws: BME280Error.noDevice(bus: "/dev/i2c-1", address: 0x77)) { try sensor.checkChipID() }
    }

    @Test func wrongChipIdIsReported() {
        let bmp280 = SimulatedBME280(chipID: 0x58)
        let sensor = BME280(device: bmp280.device)
        #expect(throws: BME280Error.wrongChip(id: 0x58)) { try sensor.checkChipID() }
        #expect(BME280Error.wrongChip(id: 0x58).description.contains("BMP280"))
    }

    @Test func softResetWritesB6ToE0AndRestoresDefaults() throws {
        let device = SimulatedI2CDevice(registers: [BME280.Register.chipID: 0x60])
        let sensor = BME280(device: device)
        try sensor.softReset()
        #expect(device[BME280.Register.reset] == 0xB6)

        let chip = SimulatedBME280()
        let driver = BME280(device: chip.device)
        try driver.configure()
        chip.device[BME280.Register.config] = 0x10
        try driver.softReset()
        #expect(chip.device[BME280.Register.config] == 0)
    }

    @Test func stepByStepForcedMeasurement() throws {
        let chip = SimulatedBME280(conditions: .init(celsius: 30, hectopascals: 1020, relativeHumidity: 40))
        let sensor = BME280(device: chip.device, settings: BME280Settings(temperature: .x2, pressure: .x16, humidity: .x1, filter: .x4))
        try sensor.checkChipID()
        #expect(throws: BME280Error.notStarted) { try sensor.readMeasurement() }
        try sensor.readCalibration()
        try sensor.configure()
        #expect(chip.device[BME280.Register.config] == 0x08)  // filter ×4 → 010 in bits 4:2
        // Configured but never triggered: the data registers still read "skipped".
        #expect(throws: BME280Error.self) { try sensor.readMeasurement() }
        try sensor.triggerMeasurement()
        let reading = try sensor.readMeasurement()
        #expect(abs(reading.celsius - 30) <= 0.01)
        #expect(chip.device[BME280.Register.ctrlMeas] == (2 << 5 | 5 << 2))  // back in sleep mode
    }

    @Test func busyStatusIsTyped() throws {
        let chip = SimulatedBME280()
        let sensor = BME280(device: chip.device)
        chip.device[BME280.Register.status] = 0x01  // NVM copy running
        #expect(throws: BME280Error.self) { try sensor.readCalibration() }
        chip.device[BME280.Register.status] = 0x00
        try sensor.readCalibration()
        chip.device[BME280.Register.status] = 0x08  // measuring
        #expect(throws: BME280Error.self) { try sensor.readMeasurement() }
    }

    @Test func implausibleReadingIsRejected() throws {
        let chip = SimulatedBME280()
        let sensor = BME280(device: chip.device)
        try sensor.readCalibration()
        // Raw values far outside anything real: pressure ≈ 0 Pa.
        let bogus = BME280RawSample(temperature: 520000, pressure: 0xFFFF0, humidity: 30000)
        for (offset, byte) in bogus.dataRegisters.enumerated() {
            chip.device[BME280RawSample.dataRegister + UInt8(offset)] = byte
        }
        do {
            _ = try sensor.readMeasurement()
            Issue.record("expected an implausible reading")
        } catch {
            guard case .implausible(_, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason.contains("pressure"))
        }
    }

    @Test func unplugMidwayThenReplug() async throws {
        let chip = SimulatedBME280()
        let sensor = BME280(device: chip.device)
        try await sensor.start(clock: ContinuousClock())
        chip.isPlugged = false
        await #expect(throws: BME280Error.self) { try await sensor.measure(clock: ContinuousClock()) }
        chip.isPlugged = true
        _ = try await sensor.measure(clock: ContinuousClock())
    }

    @Test func measurementTimeFollowsDatasheet() {
        #expect(BME280Settings().maximumMeasurementTime == .microseconds(9300))  // 1.25 + 2.3 + 2.875 + 2.875 ms
        #expect(BME280Settings(temperature: .x1, pressure: .skipped, humidity: .skipped).maximumMeasurementTime == .microseconds(3550))
        #expect(BME280Settings(temperature: .x16, pressure: .x16, humidity: .x16).maximumMeasurementTime == .microseconds(112_800))
    }

    @Test func simulatorEncodesThroughoutRange() {
        for celsius in stride(from: -40.0, through: 85.0, by: 12.5) {
            for hPa in [300.0, 700.0, 1013.25, 1100.0] {
                let conditions = SimulatedBME280.Conditions(celsius: celsius, hectopascals: hPa, relativeHumidity: 55)
                let sample = SimulatedBME280.encode(conditions, calibration: SimulatedBME280.typicalCalibration)
                let reading = BME280Compensation.reading(sample, SimulatedBME280.typicalCalibration)
                #expect(abs(reading.celsius - celsius) <= 0.01, "\(celsius) °C")
                #expect(abs(reading.hectopascals - hPa) <= 0.02, "\(hPa) hPa at \(celsius) °C")
                #expect(abs(reading.relativeHumidity - 55) <= 0.05, "55 %RH at \(celsius) °C")
            }
        }
    }
}
