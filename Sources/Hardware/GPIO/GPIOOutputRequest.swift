/// Output lines, from ``GPIOChip/requestOutput(offsets:initial:consumer:activeLow:)``.
///
/// Values are logical: with active-low, `true` drives the line low.
/// ``release()`` is idempotent and also happens in `deinit`; afterwards every
/// call throws ``GPIOError/Kind/released``.
public final class GPIOOutputRequest: Sendable {
    /// Name of the chip the lines belong to.
    public let chip: String
    /// The requested offsets, in request order.
    public let offsets: [UInt32]
    private let handle: any GPIORequestHandle

    init(handle: any GPIORequestHandle, chip: String) {
        self.handle = handle
        self.chip = chip
        self.offsets = handle.offsets
    }

    deinit { release() }

    /// Drives the only requested line.
    ///
    /// - Throws: ``GPIOError/Kind/invalidArgument`` if more than one line was requested.
    public func set(_ value: Bool) throws(GPIOError) {
        try requireSingleLine("set value")
        try handle.setValues([value])
    }

    /// Drives all requested lines, one value per offset in request order.
    public func set(_ values: [Bool]) throws(GPIOError) {
        guard values.count == offsets.count else {
            throw GPIOError(.invalidArgument, operation: "set values", chip: chip, line: GPIOChip.describe(offsets))
        }
        try handle.setValues(values)
    }

    /// The value last driven on the only requested line, as the kernel reports it.
    public func get() throws(GPIOError) -> Bool {
        try requireSingleLine("get value")
        return try handle.getValues()[0]
    }

    /// Values of all requested lines, in request order.
    public func values() throws(GPIOError) -> [Bool] {
        try handle.getValues()
    }

    /// Releases the lines. Idempotent.
    public func release() {
        handle.release()
    }

    private func requireSingleLine(_ operation: String) throws(GPIOError) {
        guard offsets.count == 1 else {
            throw GPIOError(.invalidArgument, operation: operation, chip: chip, line: GPIOChip.describe(offsets))
        }
    }
}
