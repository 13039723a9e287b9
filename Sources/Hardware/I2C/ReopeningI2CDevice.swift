#if os(Linux)
import Synchronization

/// A ``LinuxI2CDevice`` opened on first use, and opened again after the bus went away.
///
/// For a daemon that starts before its bus exists (i2c-dev or an adapter module loaded
/// later, a USB adapter plugged in later): every transfer while the bus is missing throws
/// ``I2CError/busMissing(bus:)`` like the first open would, so the caller's retry loop
/// (``WeatherService``'s back-off) is also the re-open loop. A transfer failing with
/// `.busMissing`, `.closed` or `.system` drops the descriptor; the next transfer reopens.
public final class ReopeningI2CDevice: I2CDevice {
    public let bus: String
    public let address: UInt8
    private let device = Mutex<LinuxI2CDevice?>(nil)

    /// Nothing is opened until the first transfer.
    public init(bus: String, address: UInt8) {
        self.bus = bus
        self.address = address
    }

    private func with<T>(_ body: (LinuxI2CDevice) throws(I2CError) -> T) throws(I2CError) -> T {
        let current: LinuxI2CDevice
        if let open = device.withLock({ $0 }) {
            current = open
        } else {
            current = try LinuxI2CDevice(bus: bus, address: address)
            device.withLock { $0 = current }
        }
        do {
            return try body(current)
        } catch {
            switch error {
            case .busMissing, .closed, .system:
                current.close()
                device.withLock { if $0 === current { $0 = nil } }
            default:
                break
            }
            throw error
        }
    }

    public func readByte(register: UInt8) throws(I2CError) -> UInt8 {
        try with { (d) throws(I2CError) in try d.readByte(register: register) }
    }

    public func writeByte(register: UInt8, value: UInt8) throws(I2CError) {
        try with { (d) throws(I2CError) in try d.writeByte(register: register, value: value) }
    }

    public func readWord(register: UInt8) throws(I2CError) -> UInt16 {
        try with { (d) throws(I2CError) in try d.readWord(register: register) }
    }

    public func writeWord(register: UInt8, value: UInt16) throws(I2CError) {
        try with { (d) throws(I2CError) in try d.writeWord(register: register, value: value) }
    }

    public func readBlock(register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try with { (d) throws(I2CError) in try d.readBlock(register: register, count: count) }
    }

    public func writeBlock(register: UInt8, bytes: [UInt8]) throws(I2CError) {
        try with { (d) throws(I2CError) in try d.writeBlock(register: register, bytes: bytes) }
    }

    /// Closes the descriptor, if open; a later transfer opens it again.
    public func close() {
        let open = device.withLock { state -> LinuxI2CDevice? in
            defer { state = nil }
            return state
        }
        open?.close()
    }
}
#endif
