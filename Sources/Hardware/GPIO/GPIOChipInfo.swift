/// A GPIO chip as the kernel describes it.
public struct GPIOChipInfo: Sendable, Hashable, CustomStringConvertible {
    /// Device path used to open it, e.g. `/dev/gpiochip0`.
    public var path: String
    /// Kernel name, e.g. `gpiochip0`. Numbers change between kernels (Pi 5: 4 → 0); prefer ``label``.
    public var name: String
    /// Driver label, e.g. `pinctrl-rp1` (Pi 5) or `pinctrl-bcm2711` (Pi 4).
    public var label: String
    /// Number of lines (offsets `0..<lineCount`).
    public var lineCount: Int

    public init(path: String, name: String, label: String, lineCount: Int) {
        self.path = path
        self.name = name
        self.label = label
        self.lineCount = lineCount
    }

    public var description: String { "\(name) [\(label)] \(lineCount) lines at \(path)" }
}
