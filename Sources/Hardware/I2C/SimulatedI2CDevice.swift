import Synchronization

/// An in-memory I2C device: a 256-byte register file with optional hooks.
///
/// Registers start at zero (or the given values). Block transfers auto-increment
/// the register, wrapping from 0xFF to 0x00, going through the hooks for each
/// register as a real device would. ``isPlugged`` = `false` makes every call
/// throw ``I2CError/noDevice(bus:address:)``, like a sensor pulled off the bus.
///
/// Hooks run under the device's lock with the register file passed `inout`;
/// they must not call back into the device.
public final class SimulatedI2CDevice: I2CDevice {
    /// Called for every register read. Return a value to answer with it
    /// (e.g. a changing measurement), or `nil` to answer with the stored value.
    public typealias ReadHook = @Sendable (_ register: UInt8, _ registers: inout [UInt8]) -> UInt8?
    /// Called after every register write was stored; may change any register
    /// (e.g. a reset register that restores defaults).
    public typealias WriteHook = @Sendable (_ register: UInt8, _ value: UInt8, _ registers: inout [UInt8]) -> Void

    public let bus: String
    public let address: UInt8

    private struct State {
        var registers: [UInt8]
        var plugged = true
        var reads = 0
        var writes = 0
    }

    private let state: Mutex<State>
    private let readHook: ReadHook?
    private let writeHook: WriteHook?

    /// - Parameters:
    ///   - registers: initial values by register; unlisted registers are 0.
    ///   - readHook, writeHook: see ``ReadHook`` and ``WriteHook``.
    public init(
        bus: String = "simulated",
        address: UInt8 = 0x76,
        registers: [UInt8: UInt8] = [:],
        readHook: ReadHook? = nil,
        writeHook: WriteHook? = nil
    ) {
        var file = [UInt8](repeating: 0, count: 256)
        for (register, value) in registers { file[Int(register)] = value }
        self.bus = bus
        self.address = address
        self.state = Mutex(State(registers: file))
        self.readHook = readHook
        self.writeHook = writeHook
    }

    /// Whether the device answers; `false` simulates unplugging it.
    public var isPlugged: Bool {
        get { state.withLock { $0.plugged } }
        set { state.withLock { $0.plugged = newValue } }
    }

    /// The stored value of `register`, without hooks (for test assertions and setup).
    public subscript(register: UInt8) -> UInt8 {
        get { state.withLock { $0.registers[Int(register)] } }
        set { state.withLock { $0.registers[Int(register)] = newValue } }
    }

    /// Register reads and writes served so far (a block counts each register).
    public var transferCounts: (reads: Int, writes: Int) {
        state.withLock { ($0.reads, $0.writes) }
    }

    public func readByte(register: UInt8) throws(I2CError) -> UInt8 {
        try readRegisters(from: register, count: 1)[0]
    }

    public func writeByte(register: UInt8, value: UInt8) throws(I2CError) {
        try writeRegisters(from: register, bytes: [value])
    }

    public func readWord(register: UInt8) throws(I2CError) -> UInt16 {
        let bytes = try readRegisters(from: register, count: 2)
        return UInt16(bytes[0]) | UInt16(bytes[1]) << 8
    }

    public func writeWord(register: UInt8, value: UInt16) throws(I2CError) {
        try writeRegisters(from: register, bytes: [UInt8(value & 0xFF), UInt8(value >> 8)])
    }

    public func readBlock(register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try validateI2CBlock(count: count)
        return try readRegisters(from: register, count: count)
    }

    public func writeBlock(register: UInt8, bytes: [UInt8]) throws(I2CError) {
        try validateI2CBlock(count: bytes.count)
        try writeRegisters(from: register, bytes: bytes)
    }

    // MARK: - Register file

    private func readRegisters(from start: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try state.withLock { (state: inout State) throws(I2CError) -> [UInt8] in
            guard state.plugged else { throw .noDevice(bus: bus, address: address) }
            var result: [UInt8] = []
            result.reserveCapacity(count)
            var register = start
            for _ in 0..<count {
                let stored = state.registers[Int(register)]
                result.append(readHook?(register, &state.registers) ?? stored)
                state.reads += 1
                register &+= 1
            }
            return result
        }
    }

    private func writeRegisters(from start: UInt8, bytes: [UInt8]) throws(I2CError) {
        try state.withLock { (state: inout State) throws(I2CError) in
            guard state.plugged else { throw .noDevice(bus: bus, address: address) }
            var register = start
            for value in bytes {
                state.registers[Int(register)] = value
                state.writes += 1
                writeHook?(register, value, &state.registers)
                register &+= 1
            }
        }
    }
}
