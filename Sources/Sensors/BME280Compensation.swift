/// The datasheet's fixed-point compensation formulas (BME280 datasheet
/// section 4.2.3 / 8.2): temperature in int32, pressure in the int64 variant,
/// humidity in int32.
///
/// Arithmetic wraps like the datasheet's C code instead of trapping, so any
/// register contents give a result (garbage in, garbage out — the driver's
/// plausibility check rejects it) and never a crash.
public enum BME280Compensation {
    /// Temperature in 0.01 °C (`5123` = 51.23 °C) and `t_fine`, the
    /// fine temperature the pressure and humidity formulas need.
    public static func temperature(adc: Int32, _ c: BME280Calibration) -> (centiCelsius: Int32, tFine: Int32) {
        let t1 = Int32(c.t1), t2 = Int32(c.t2), t3 = Int32(c.t3)
        let var1 = (((adc >> 3) &- (t1 << 1)) &* t2) >> 11
        let d = (adc >> 4) &- t1
        let var2 = ((((d &* d) >> 12) &* t3)) >> 14
        let tFine = var1 &+ var2
        let t = (tFine &* 5 &+ 128) >> 8
        return (t, tFine)
    }

    /// Pressure in Pa as Q24.8 (`24674867` = 24674867 / 256 = 96386.2 Pa);
    /// `0` when the calibration would divide by zero.
    public static func pressure(adc: Int32, tFine: Int32, _ c: BME280Calibration) -> UInt32 {
        let p1 = Int64(c.p1), p2 = Int64(c.p2), p3 = Int64(c.p3), p4 = Int64(c.p4), p5 = Int64(c.p5)
        let p6 = Int64(c.p6), p7 = Int64(c.p7), p8 = Int64(c.p8), p9 = Int64(c.p9)
        var var1 = Int64(tFine) &- 128_000
        var var2 = var1 &* var1 &* p6
        var2 = var2 &+ ((var1 &* p5) << 17)
        var2 = var2 &+ (p4 << 35)
        var1 = ((var1 &* var1 &* p3) >> 8) &+ ((var1 &* p2) << 12)
        var1 = (((Int64(1) << 47) &+ var1) &* p1) >> 33
        if var1 == 0 { return 0 }
        var p = 1_048_576 &- Int64(adc)
        let (quotient, overflow) = (((p << 31) &- var2) &* 3125).dividedReportingOverflow(by: var1)
        if overflow { return 0 }
        p = quotient
        var1 = (p9 &* (p >> 13) &* (p >> 13)) >> 25
        var2 = (p8 &* p) >> 19
        p = ((p &+ var1 &+ var2) >> 8) &+ (p7 << 4)
        return UInt32(truncatingIfNeeded: p)
    }

    /// Relative humidity in %RH as Q22.10 (`47445` = 47445 / 1024 = 46.333 %RH),
    /// clamped to 0…100 %.
    public static func humidity(adc: Int32, tFine: Int32, _ c: BME280Calibration) -> UInt32 {
        let h1 = Int32(c.h1), h2 = Int32(c.h2), h3 = Int32(c.h3)
        let h4 = Int32(c.h4), h5 = Int32(c.h5), h6 = Int32(c.h6)
        var v = tFine &- 76_800
        let a = (((adc << 14) &- (h4 << 20) &- (h5 &* v)) &+ 16_384) >> 15
        var b = (v &* h6) >> 10
        let b2 = ((v &* h3) >> 11) &+ 32_768
        b = (b &* b2) >> 10
        b = (((b &+ 2_097_152) &* h2) &+ 8192) >> 14
        v = a &* b
        v = v &- (((((v >> 15) &* (v >> 15)) >> 7) &* h1) >> 4)
        v = min(max(v, 0), 419_430_400)
        return UInt32(v >> 12)
    }

    /// All three compensated values of `sample`.
    public static func reading(_ sample: BME280RawSample, _ c: BME280Calibration) -> BME280Reading {
        let (t, tFine) = temperature(adc: sample.temperature, c)
        return BME280Reading(
            temperatureCentiCelsius: t,
            pressureQ24_8: pressure(adc: sample.pressure, tFine: tFine, c),
            humidityQ22_10: humidity(adc: sample.humidity, tFine: tFine, c)
        )
    }
}
