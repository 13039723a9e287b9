/// One temperature read from a DS18B20 through the kernel's w1-therm driver.
public struct DS18B20Reading: Sendable, Equatable {
    /// Temperature in millidegrees Celsius (`t=` in `w1_slave`).
    public var milliCelsius: Int
    /// The 9 scratchpad bytes the kernel read.
    public var scratchpad: [UInt8]

    public init(milliCelsius: Int, scratchpad: [UInt8]) {
        self.milliCelsius = milliCelsius
        self.scratchpad = scratchpad
    }

    /// Temperature in °C.
    public var celsius: Double { Double(milliCelsius) / 1000 }
}
