/// Why a DS18B20 `w1_slave` text gave no temperature.
public enum DS18B20Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kernel's CRC check failed (`crc=.. NO`): a noisy or long bus, a loose wire.
    case crcMismatch(line: String)
    /// The scratchpad is all zeros (the kernel reports `crc=00 YES` for a sensor
    /// that vanished from the bus) or all 0xFF (nothing pulled the bus low).
    case noSensor
    /// 85.000 °C with the power-on scratchpad: the sensor reset (power glitch)
    /// before converting, so this is not a measurement.
    case powerOnReset
    /// The text is not in the `w1_slave` format; says what was wrong.
    case malformed(String)
    /// The temperature lies outside the part's range, −55…125 °C.
    case outOfRange(milliCelsius: Int)
    /// The device file could not be read.
    case unreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .crcMismatch(let line): return "DS18B20 CRC check failed: \(line)"
        case .noSensor: return "DS18B20 not answering (empty scratchpad)"
        case .powerOnReset: return "DS18B20 returned its power-on value 85 °C (sensor reset; check power)"
        case .malformed(let why): return "DS18B20 w1_slave malformed: \(why)"
        case .outOfRange(let milli): return "DS18B20 temperature \(Double(milli) / 1000) °C outside −55…125 °C"
        case .unreadable(let path, let reason): return "DS18B20 \(path) unreadable: \(reason)"
        }
    }
}
