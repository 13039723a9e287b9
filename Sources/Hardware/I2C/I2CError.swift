import DriftSystem

/// What went wrong talking to an I2C device, naming the bus and address.
public enum I2CError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No bus device node, e.g. `/dev/i2c-1` when I2C is not enabled
    /// (`dtparam=i2c_arm=on` on a Pi) or `i2c-dev` is not loaded.
    case busMissing(bus: String)
    /// The bus exists but this process may not open it (add the user to `i2c`).
    case permissionDenied(bus: String)
    /// The path is not an I2C adapter (`ENOTTY` from the I2C ioctls).
    case notAnAdapter(bus: String)
    /// The address is outside the 7-bit range 0x03…0x77.
    case invalidAddress(UInt8)
    /// A kernel driver already owns this address (`EBUSY` from `I2C_SLAVE`).
    case addressInUse(bus: String, address: UInt8)
    /// Nothing answered at the address: NACK (`ENXIO`, `EREMOTEIO`, `ENODEV`),
    /// or a simulated device that is unplugged.
    case noDevice(bus: String, address: UInt8)
    /// A block transfer of `count` bytes: blocks are 1…32 bytes (`I2C_SMBUS_BLOCK_MAX`).
    case invalidLength(count: Int)
    /// The adapter lacks the SMBus transfer (per `I2C_FUNCS`).
    case unsupported(bus: String, operation: String)
    /// The device was closed by its owner.
    case closed(bus: String)
    /// Any other failed system call.
    case system(bus: String, SystemError)

    public var description: String {
        switch self {
        case .busMissing(let bus): return "I2C bus \(bus) does not exist (is I2C enabled and i2c-dev loaded?)"
        case .permissionDenied(let bus): return "I2C bus \(bus): permission denied"
        case .notAnAdapter(let bus): return "\(bus) is not an I2C adapter"
        case .invalidAddress(let address): return "I2C address \(I2CError.hex(address)) is not a 7-bit device address (0x03…0x77)"
        case .addressInUse(let bus, let address):
            return "I2C bus \(bus): address \(I2CError.hex(address)) is in use by a kernel driver"
        case .noDevice(let bus, let address): return "I2C bus \(bus): no device answers at \(I2CError.hex(address))"
        case .invalidLength(let count): return "I2C block of \(count) bytes (must be 1…32)"
        case .unsupported(let bus, let operation): return "I2C bus \(bus) does not support \(operation)"
        case .closed(let bus): return "I2C bus \(bus): device closed"
        case .system(let bus, let error): return "I2C bus \(bus): \(error)"
        }
    }

    static func hex(_ address: UInt8) -> String {
        let digits = String(address, radix: 16)
        return "0x" + (digits.count < 2 ? "0" + digits : digits)
    }
}
