/// One burst read of the BME280 data registers 0xF7…0xFE: the uncompensated
/// ADC values.
public struct BME280RawSample: Sendable, Equatable {
    /// First data register (`press_msb`).
    public static let dataRegister: UInt8 = 0xF7
    /// Bytes in the burst: press (3), temp (3), hum (2).
    public static let dataCount = 8
    /// The value a 20-bit channel reads when its measurement is skipped
    /// (oversampling 0) or the chip has not measured since reset.
    public static let skipped20Bit: Int32 = 0x80000
    /// The value the humidity channel reads when skipped.
    public static let skipped16Bit: Int32 = 0x8000

    /// `adc_T`, 20 bits.
    public var temperature: Int32
    /// `adc_P`, 20 bits.
    public var pressure: Int32
    /// `adc_H`, 16 bits.
    public var humidity: Int32

    public init(temperature: Int32, pressure: Int32, humidity: Int32) {
        self.temperature = temperature
        self.pressure = pressure
        self.humidity = humidity
    }

    /// Decodes the 8-byte burst.
    /// - Throws: ``BME280Error/invalidData(_:)`` unless `bytes` has 8 elements.
    public init(dataRegisters bytes: [UInt8]) throws(BME280Error) {
        guard bytes.count == Self.dataCount else {
            throw .invalidData("expected \(Self.dataCount) data bytes, got \(bytes.count)")
        }
        pressure = Int32(bytes[0]) << 12 | Int32(bytes[1]) << 4 | Int32(bytes[2]) >> 4
        temperature = Int32(bytes[3]) << 12 | Int32(bytes[4]) << 4 | Int32(bytes[5]) >> 4
        humidity = Int32(bytes[6]) << 8 | Int32(bytes[7])
    }

    /// The 8 data register bytes that decode to this sample (for simulated chips and tests).
    public var dataRegisters: [UInt8] {
        let p = UInt32(bitPattern: pressure) & 0xFFFFF
        let t = UInt32(bitPattern: temperature) & 0xFFFFF
        let h = UInt32(bitPattern: humidity) & 0xFFFF
        return [
            UInt8(p >> 12), UInt8((p >> 4) & 0xFF), UInt8((p & 0x0F) << 4),
            UInt8(t >> 12), UInt8((t >> 4) & 0xFF), UInt8((t & 0x0F) << 4),
            UInt8(h >> 8), UInt8(h & 0xFF),
        ]
    }
}
