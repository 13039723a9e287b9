/// One line of a chip as the kernel reports it, requested or not.
public struct GPIOLineInfo: Sendable, Hashable {
    /// Offset on its chip.
    public var offset: UInt32
    /// Line name from the device tree, e.g. `GPIO17`; empty when unnamed.
    public var name: String
    /// Who requested it, e.g. `driftd`; empty when free or unnamed.
    public var consumer: String
    /// Requested by anyone (a kernel driver or a process).
    public var isUsed: Bool
    /// Configured as an output.
    public var isOutput: Bool
    /// Configured active-low.
    public var isActiveLow: Bool

    public init(offset: UInt32, name: String, consumer: String = "", isUsed: Bool = false, isOutput: Bool = false, isActiveLow: Bool = false) {
        self.offset = offset
        self.name = name
        self.consumer = consumer
        self.isUsed = isUsed
        self.isOutput = isOutput
        self.isActiveLow = isActiveLow
    }
}
