extension Double {
    var radians: Double { self * .pi / 180 }
    var degrees: Double { self * 180 / .pi }

    /// Remainder in `0..<modulus` (also for negative values).
    func positiveRemainder(_ modulus: Double) -> Double {
        let r = truncatingRemainder(dividingBy: modulus)
        return r < 0 ? r + modulus : r
    }
}
