/// Comparisons whose running time does not depend on where inputs differ.
enum ConstantTime {
    /// `true` when both byte sequences are equal; time depends only on their lengths.
    static func equal(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(lhs, rhs) { difference |= a ^ b }
        return difference == 0
    }
}
