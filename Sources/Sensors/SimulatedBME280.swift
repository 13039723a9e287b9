import Hardware
import Synchronization

/// A BME280 in memory for the simulated board and tests: a
/// ``SimulatedI2CDevice`` whose registers behave like the chip's.
///
/// It answers chip id 0x60, holds a known calibration, restores its power-on
/// register values on soft reset, and on each forced-mode `ctrl_meas` write
/// encodes the current ``conditions`` into raw ADC values (by searching the
/// ADC value whose compensation comes closest) and returns to sleep mode.
/// ``device``'s `isPlugged` simulates unplugging it.
public final class SimulatedBME280: Sendable {
    /// What the simulated chip measures.
    public struct Conditions: Sendable, Equatable {
        public var celsius: Double
        public var hectopascals: Double
        public var relativeHumidity: Double

        public init(celsius: Double, hectopascals: Double, relativeHumidity: Double) {
            self.celsius = celsius
            self.hectopascals = hectopascals
            self.relativeHumidity = relativeHumidity
        }
    }

    /// A typical calibration (of the kind real parts carry).
    public static let typicalCalibration = BME280Calibration(
        t1: 28485, t2: 26735, t3: 50,
        p1: 36738, p2: -10635, p3: 3024, p4: 6980, p5: -4, p6: -7, p7: 9900, p8: -10230, p9: 4285,
        h1: 75, h2: 352, h3: 0, h4: 339, h5: 0, h6: 30
    )

    /// The I2C device to hand to ``BME280``.
    public let device: SimulatedI2CDevice
    public let calibration: BME280Calibration
    private let shared: Shared

    /// State shared with the register hook.
    private final class Shared: Sendable {
        let conditions: Mutex<Conditions>
        let measurements = Mutex(0)
        init(_ conditions: Conditions) { self.conditions = Mutex(conditions) }
    }

    public init(
        conditions: Conditions = Conditions(celsius: 20, hectopascals: 1013.25, relativeHumidity: 50),
        calibration: BME280Calibration = SimulatedBME280.typicalCalibration,
        bus: String = "simulated",
        address: UInt8 = 0x76,
        chipID: UInt8 = BME280.chipID
    ) {
        let powerOn = Self.powerOnRegisters(calibration: calibration, chipID: chipID)
        let shared = Shared(conditions)
        self.calibration = calibration
        self.shared = shared
        self.device = SimulatedI2CDevice(
            bus: bus,
            address: address,
            registers: powerOn,
            writeHook: { register, value, registers in
                switch register {
                case BME280.Register.reset where value == BME280.resetCommand:
                    for (register, value) in powerOn { registers[Int(register)] = value }
                case BME280.Register.ctrlMeas where value & 0x03 != 0:
                    let conditions = shared.conditions.withLock { $0 }
                    let osrsT = (value >> 5) & 0x07, osrsP = (value >> 2) & 0x07
                    let osrsH = registers[Int(BME280.Register.ctrlHum)] & 0x07
                    var sample = SimulatedBME280.encode(conditions, calibration: calibration)
                    if osrsT == 0 { sample.temperature = BME280RawSample.skipped20Bit }
                    if osrsP == 0 { sample.pressure = BME280RawSample.skipped20Bit }
                    if osrsH == 0 { sample.humidity = BME280RawSample.skipped16Bit }
                    for (offset, byte) in sample.dataRegisters.enumerated() {
                        registers[Int(BME280RawSample.dataRegister) + offset] = byte
                    }
                    registers[Int(BME280.Register.ctrlMeas)] = value & ~0x03  // back to sleep
                    shared.measurements.withLock { $0 += 1 }
                default:
                    break
                }
            }
        )
    }

    /// The conditions the next measurement encodes.
    public var conditions: Conditions {
        get { shared.conditions.withLock { $0 } }
        set { shared.conditions.withLock { $0 = newValue } }
    }

    /// Forced measurements performed so far.
    public var measurements: Int { shared.measurements.withLock { $0 } }

    /// Unplugs (`false`) or plugs in the simulated chip.
    public var isPlugged: Bool {
        get { device.isPlugged }
        set { device.isPlugged = newValue }
    }

    /// The registers after power-on or soft reset: id, calibration, data reading "skipped".
    static func powerOnRegisters(calibration: BME280Calibration, chipID: UInt8) -> [UInt8: UInt8] {
        var registers: [UInt8: UInt8] = [BME280.Register.chipID: chipID]
        let (block1, block2) = calibration.registerBlocks
        for (offset, byte) in block1.enumerated() { registers[BME280Calibration.block1Register + UInt8(offset)] = byte }
        for (offset, byte) in block2.enumerated() { registers[BME280Calibration.block2Register + UInt8(offset)] = byte }
        let idle = BME280RawSample(temperature: BME280RawSample.skipped20Bit, pressure: BME280RawSample.skipped20Bit, humidity: BME280RawSample.skipped16Bit)
        for (offset, byte) in idle.dataRegisters.enumerated() { registers[BME280RawSample.dataRegister + UInt8(offset)] = byte }
        for register in [BME280.Register.ctrlHum, BME280.Register.status, BME280.Register.ctrlMeas, BME280.Register.config] {
            registers[register] = 0
        }
        return registers
    }

    /// The raw sample whose compensation with `calibration` comes closest to `conditions`.
    public static func encode(_ conditions: Conditions, calibration: BME280Calibration) -> BME280RawSample {
        let targetT = Int64((conditions.celsius * 100).rounded())
        let adcT = closest(in: 0...0xFFFFF, target: targetT) {
            Int64(BME280Compensation.temperature(adc: $0, calibration).centiCelsius)
        }
        let tFine = BME280Compensation.temperature(adc: adcT, calibration).tFine
        let targetP = Int64((conditions.hectopascals * 100 * 256).rounded())
        let adcP = closest(in: 0...0xFFFFF, target: targetP) {
            // Signed, so a negative result (past the top of the range) sorts below zero.
            Int64(Int32(truncatingIfNeeded: BME280Compensation.pressure(adc: $0, tFine: tFine, calibration)))
        }
        let targetH = Int64((min(max(conditions.relativeHumidity, 0), 100) * 1024).rounded())
        let adcH = closest(in: 0...0xFFFF, target: targetH) {
            Int64(BME280Compensation.humidity(adc: $0, tFine: tFine, calibration))
        }
        return BME280RawSample(temperature: adcT, pressure: adcP, humidity: adcH)
    }

    /// Binary search over a monotonic (rising or falling) `value` for the input closest to `target`.
    private static func closest(in range: ClosedRange<Int32>, target: Int64, _ value: (Int32) -> Int64) -> Int32 {
        let rising = value(range.upperBound) >= value(range.lowerBound)
        var low = range.lowerBound, high = range.upperBound
        while high - low > 1 {
            let mid = low + (high - low) / 2
            let below = rising ? value(mid) < target : value(mid) > target
            if below { low = mid } else { high = mid }
        }
        return abs(value(low) - target) <= abs(value(high) - target) ? low : high
    }
}
