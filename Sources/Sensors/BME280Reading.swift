/// One compensated BME280 measurement, kept in the datasheet's fixed-point
/// units so it compares exactly; the computed properties give SI-ish units.
public struct BME280Reading: Sendable, Equatable, CustomStringConvertible {
    /// Temperature in 0.01 °C.
    public var temperatureCentiCelsius: Int32
    /// Pressure in Pa, Q24.8 (divide by 256).
    public var pressureQ24_8: UInt32
    /// Relative humidity in %RH, Q22.10 (divide by 1024).
    public var humidityQ22_10: UInt32

    public init(temperatureCentiCelsius: Int32, pressureQ24_8: UInt32, humidityQ22_10: UInt32) {
        self.temperatureCentiCelsius = temperatureCentiCelsius
        self.pressureQ24_8 = pressureQ24_8
        self.humidityQ22_10 = humidityQ22_10
    }

    /// Temperature in °C.
    public var celsius: Double { Double(temperatureCentiCelsius) / 100 }
    /// Pressure in Pa.
    public var pascals: Double { Double(pressureQ24_8) / 256 }
    /// Pressure in hPa (= mbar).
    public var hectopascals: Double { pascals / 100 }
    /// Relative humidity in percent, 0…100.
    public var relativeHumidity: Double { Double(humidityQ22_10) / 1024 }

    /// Operating range of the part (datasheet table 1): −40…85 °C.
    public static let plausibleCelsius: ClosedRange<Double> = -40...85
    /// Operating range of the part (datasheet table 1): 300…1100 hPa.
    public static let plausibleHectopascals: ClosedRange<Double> = 300...1100

    /// Why this reading cannot be a real measurement, or `nil` if it is plausible.
    public var implausibility: String? {
        if !Self.plausibleCelsius.contains(celsius) {
            return "temperature \(celsius) °C outside \(Self.plausibleCelsius.lowerBound)…\(Self.plausibleCelsius.upperBound) °C"
        }
        if !Self.plausibleHectopascals.contains(hectopascals) {
            return "pressure \(hectopascals) hPa outside \(Self.plausibleHectopascals.lowerBound)…\(Self.plausibleHectopascals.upperBound) hPa"
        }
        return nil
    }

    public var description: String {
        func fixed(_ value: Double, _ places: Int) -> String {
            var scale = 1.0
            for _ in 0..<places { scale *= 10 }
            let scaled = (value * scale).rounded()
            let whole = Int(scaled / scale)
            let fraction = Int(abs(scaled).truncatingRemainder(dividingBy: scale))
            let sign = scaled < 0 && whole == 0 ? "-" : ""
            var digits = String(fraction)
            while digits.count < places { digits = "0" + digits }
            return "\(sign)\(whole).\(digits)"
        }
        return "\(fixed(celsius, 2)) °C, \(fixed(hectopascals, 2)) hPa, \(fixed(relativeHumidity, 1)) %RH"
    }
}
