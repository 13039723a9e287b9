/// How a ``BME280`` measures: oversampling per channel and the IIR filter.
///
/// The defaults (×1 everywhere, filter off) are the datasheet's "weather
/// monitoring" recommendation (section 3.5.1) for one forced measurement a minute.
public struct BME280Settings: Sendable, Equatable {
    /// Oversampling of one channel (`osrs_x` bits); `.skipped` turns the channel off.
    public enum Oversampling: UInt8, Sendable, CaseIterable {
        case skipped = 0, x1 = 1, x2 = 2, x4 = 3, x8 = 4, x16 = 5

        /// Number of samples averaged.
        public var factor: Int { self == .skipped ? 0 : 1 << (Int(rawValue) - 1) }
    }

    /// IIR filter coefficient (`filter` bits of `config`).
    public enum Filter: UInt8, Sendable, CaseIterable {
        case off = 0, x2 = 1, x4 = 2, x8 = 3, x16 = 4
    }

    public var temperature: Oversampling
    public var pressure: Oversampling
    public var humidity: Oversampling
    public var filter: Filter

    public init(temperature: Oversampling = .x1, pressure: Oversampling = .x1, humidity: Oversampling = .x1, filter: Filter = .off) {
        self.temperature = temperature
        self.pressure = pressure
        self.humidity = humidity
        self.filter = filter
    }

    /// `ctrl_hum` (0xF2): `osrs_h`.
    public var ctrlHum: UInt8 { humidity.rawValue }
    /// `config` (0xF5): filter; standby and SPI bits zero (unused in forced mode, I2C).
    public var config: UInt8 { filter.rawValue << 2 }
    /// `ctrl_meas` (0xF4) with the given mode bits (0 sleep, 1 forced).
    public func ctrlMeas(mode: UInt8) -> UInt8 {
        temperature.rawValue << 5 | pressure.rawValue << 2 | (mode & 0x03)
    }

    /// The datasheet's maximum measurement time (appendix 9.1), rounded up to whole
    /// microseconds: 1.25 ms + 2.3 ms × T + (2.3 ms × P + 0.575 ms) + (2.3 ms × H + 0.575 ms),
    /// the last two only for enabled channels.
    public var maximumMeasurementTime: Duration {
        var micros = 1250 + 2300 * temperature.factor
        if pressure != .skipped { micros += 2300 * pressure.factor + 575 }
        if humidity != .skipped { micros += 2300 * humidity.factor + 575 }
        return .microseconds(micros)
    }
}
