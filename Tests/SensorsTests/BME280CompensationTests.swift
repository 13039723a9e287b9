import Sensors
import Testing

@Suite("BME280 compensation")
struct BME280CompensationTests {
    /// The worked example of the Bosch datasheet (BMP280 datasheet section 3.12;
    /// the BME280 uses the same temperature and pressure formulas).
    static let datasheet = BME280Calibration(
        t1: 27504, t2: 26435, t3: -1000,
        p1: 36477, p2: -10685, p3: 3024, p4: 2855, p5: 140, p6: -7, p7: 15500, p8: -14600, p9: 6000,
        h1: 75, h2: 362, h3: 0, h4: 313, h5: 50, h6: 30
    )

    @Test func datasheetWorkedExampleTemperature() {
        let (t, tFine) = BME280Compensation.temperature(adc: 519888, Self.datasheet)
        #expect(tFine == 128422)
        #expect(t == 2508)  // 25.08 °C
    }

    @Test func datasheetWorkedExamplePressure() {
        let p = BME280Compensation.pressure(adc: 415148, tFine: 128422, Self.datasheet)
        // The datasheet gives 100653.27 Pa (double precision); the int64 variant
        // is within 1/256 Pa steps of it.
        #expect(abs(Double(p) / 256 - 100653.27) < 0.05)
        #expect(p == 25767233)
    }

    @Test(arguments: bme280Dumps)
    func registerDumpMatchesReference(_ dump: BME280Dump) throws {
        let calibration = try BME280Calibration(block1: dump.calibration1, block2: dump.calibration2)
        let sample = try BME280RawSample(dataRegisters: dump.data)
        let (t, tFine) = BME280Compensation.temperature(adc: sample.temperature, calibration)
        #expect(tFine == dump.tFine, "\(dump.name)")
        #expect(t == dump.temperatureCentiCelsius, "\(dump.name)")
        #expect(BME280Compensation.pressure(adc: sample.pressure, tFine: tFine, calibration) == dump.pressureQ24_8, "\(dump.name)")
        #expect(BME280Compensation.humidity(adc: sample.humidity, tFine: tFine, calibration) == dump.humidityQ22_10, "\(dump.name)")
    }

    @Test func dumpsIncludeAtLeastThreeBesidesTheDatasheet() {
        #expect(bme280Dumps.filter { $0.name != "datasheetExample" }.count >= 3)
    }

    @Test func calibrationDecodesH4H5NibblePacking() throws {
        // 0xE4 = 0x13, 0xE5 = 0x29, 0xE6 = 0x03: H4 = 0x13 << 4 | 0x9 = 313, H5 = 0x03 << 4 | 0x2 = 50.
        let block1 = [UInt8](repeating: 1, count: 26)
        let calibration = try BME280Calibration(block1: block1, block2: [0x6A, 0x01, 0x00, 0x13, 0x29, 0x03, 0x1E])
        #expect(calibration.h2 == 362)
        #expect(calibration.h4 == 313)
        #expect(calibration.h5 == 50)
        #expect(calibration.h6 == 30)
        // Negative: 0xE4 = 0xFF, 0xE5 = 0xB4, 0xE6 = 0xFD → H4 = -16 | 4 = -12, H5 = -48 | 0xB = -37.
        let negative = try BME280Calibration(block1: block1, block2: [0x00, 0x00, 0x00, 0xFF, 0xB4, 0xFD, 0xEC])
        #expect(negative.h4 == -12)
        #expect(negative.h5 == -37)
        #expect(negative.h6 == -20)
    }

    @Test func calibrationRoundTripsThroughRegisters() throws {
        let (block1, block2) = Self.datasheet.registerBlocks
        #expect(try BME280Calibration(block1: block1, block2: block2) == Self.datasheet)
    }

    @Test func calibrationRejectsEmptyBus() {
        #expect(throws: BME280Error.self) {
            try BME280Calibration(block1: [UInt8](repeating: 0xFF, count: 26), block2: [UInt8](repeating: 0xFF, count: 7))
        }
        #expect(throws: BME280Error.self) {
            try BME280Calibration(block1: [UInt8](repeating: 0, count: 26), block2: [UInt8](repeating: 0, count: 7))
        }
        #expect(throws: BME280Error.self) {
            try BME280Calibration(block1: [1, 2, 3], block2: [])
        }
    }

    @Test func rawSampleDecodes20BitChannels() throws {
        let sample = try BME280RawSample(dataRegisters: [0x65, 0x5A, 0xC0, 0x7E, 0xED, 0x00, 0x61, 0xA8])
        #expect(sample.pressure == 415148)
        #expect(sample.temperature == 519888)
        #expect(sample.humidity == 25000)
        #expect(sample.dataRegisters == [0x65, 0x5A, 0xC0, 0x7E, 0xED, 0x00, 0x61, 0xA8])
    }

    @Test func garbageRegistersNeverTrap() {
        // Extreme coefficients and ADC values: wrapping arithmetic, any result, no crash.
        let extreme = BME280Calibration(
            t1: 65535, t2: -32768, t3: 32767,
            p1: 1, p2: 32767, p3: -32768, p4: 32767, p5: -32768, p6: 32767, p7: -32768, p8: 32767, p9: -32768,
            h1: 255, h2: -32768, h3: 255, h4: -2048, h5: 2047, h6: -128
        )
        for adc: Int32 in [0, 1, 0x80000, 0xFFFFF] {
            let (_, tFine) = BME280Compensation.temperature(adc: adc, extreme)
            _ = BME280Compensation.pressure(adc: adc, tFine: tFine, extreme)
            let h = BME280Compensation.humidity(adc: adc & 0xFFFF, tFine: tFine, extreme)
            #expect(h <= 102400)
        }
    }
}
