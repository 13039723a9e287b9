#if os(Linux)
import CDriftSys
import DriftSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A device on a Linux I2C bus through i2c-dev: `I2C_SLAVE` selects the address,
/// `I2C_SMBUS` ioctls do the transfers. Works on real adapters and on the
/// kernel's `i2c-stub` test driver.
///
/// The descriptor is opened once and closed by ``close()`` or when released.
/// Transfers are serialised on an internal lock.
public final class LinuxI2CDevice: I2CDevice {
    public let bus: String
    public let address: UInt8

    private let state: Mutex<FileDescriptor?>
    private let functionality: UInt

    /// Opens `bus` (e.g. `/dev/i2c-1`) and selects `address`.
    /// - Throws: ``I2CError``: `.invalidAddress` (outside 0x03…0x77), `.busMissing`
    ///   naming the bus, `.permissionDenied`, `.notAnAdapter`, `.addressInUse`, `.system`.
    public init(bus: String, address: UInt8) throws(I2CError) {
        guard (0x03...0x77).contains(address) else { throw .invalidAddress(address) }
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(bus, flags: O_RDWR)
        } catch {
            switch error.errno {
            case ENOENT, ENXIO, ENODEV: throw .busMissing(bus: bus)
            case EACCES, EPERM: throw .permissionDenied(bus: bus)
            default: throw .system(bus: bus, error)
            }
        }
        do throws(I2CError) {
            var funcs: UInt = 0
            do {
                try Syscall.retryingEINTR("ioctl(I2C_FUNCS)", subject: bus) { drift_i2c_functionality(descriptor.rawValue, &funcs) }
            } catch {
                throw Self.adapterError(error, bus: bus)
            }
            do {
                try Syscall.retryingEINTR("ioctl(I2C_SLAVE)", subject: bus) { drift_i2c_set_address(descriptor.rawValue, CUnsignedInt(address)) }
            } catch {
                if error.errno == EBUSY { throw .addressInUse(bus: bus, address: address) }
                throw Self.adapterError(error, bus: bus)
            }
            self.functionality = funcs
        } catch {
            try? descriptor.close()
            throw error
        }
        self.bus = bus
        self.address = address
        self.state = Mutex(descriptor)
    }

    deinit {
        close()
    }

    /// Closes the bus descriptor; later calls throw ``I2CError/closed(bus:)``. Idempotent.
    public func close() {
        let descriptor = state.withLock { descriptor -> FileDescriptor? in
            defer { descriptor = nil }
            return descriptor
        }
        try? descriptor?.close()
    }

    public func readByte(register: UInt8) throws(I2CError) -> UInt8 {
        let value = try transfer("read byte data", requires: drift_i2c_func_read_byte_data()) { fd in
            drift_i2c_read_byte_data(fd, register)
        }
        return UInt8(truncatingIfNeeded: value)
    }

    public func writeByte(register: UInt8, value: UInt8) throws(I2CError) {
        try transfer("write byte data", requires: drift_i2c_func_write_byte_data()) { fd in
            drift_i2c_write_byte_data(fd, register, value)
        }
    }

    public func readWord(register: UInt8) throws(I2CError) -> UInt16 {
        let value = try transfer("read word data", requires: drift_i2c_func_read_word_data()) { fd in
            drift_i2c_read_word_data(fd, register)
        }
        return UInt16(truncatingIfNeeded: value)
    }

    public func writeWord(register: UInt8, value: UInt16) throws(I2CError) {
        try transfer("write word data", requires: drift_i2c_func_write_word_data()) { fd in
            drift_i2c_write_word_data(fd, register, value)
        }
    }

    public func readBlock(register: UInt8, count: Int) throws(I2CError) -> [UInt8] {
        try validateI2CBlock(count: count)
        var buffer = [UInt8](repeating: 0, count: count)
        let received = try buffer.withUnsafeMutableBufferPointer { (pointer) -> Result<CInt, I2CError> in
            Result { () throws(I2CError) -> CInt in
                try transfer("I2C block read", requires: drift_i2c_func_read_i2c_block()) { fd in
                    drift_i2c_read_i2c_block_data(fd, register, UInt8(count), pointer.baseAddress)
                }
            }
        }.get()
        return Array(buffer.prefix(Int(received)))
    }

    public func writeBlock(register: UInt8, bytes: [UInt8]) throws(I2CError) {
        try validateI2CBlock(count: bytes.count)
        _ = try bytes.withUnsafeBufferPointer { (pointer) -> Result<CInt, I2CError> in
            Result { () throws(I2CError) -> CInt in
                try transfer("I2C block write", requires: drift_i2c_func_write_i2c_block()) { fd in
                    drift_i2c_write_i2c_block_data(fd, register, UInt8(bytes.count), pointer.baseAddress)
                }
            }
        }.get()
    }

    // MARK: - ioctl plumbing

    /// Runs one SMBus transfer under the lock, after checking the adapter supports it.
    @discardableResult
    private func transfer(
        _ operation: String,
        requires function: UInt,
        _ body: (CInt) -> CInt
    ) throws(I2CError) -> CInt {
        guard functionality & function != 0 else { throw .unsupported(bus: bus, operation: operation) }
        return try state.withLock { (descriptor: inout FileDescriptor?) throws(I2CError) -> CInt in
            guard let descriptor else { throw .closed(bus: bus) }
            do throws(SystemError) {
                return try Syscall.retryingEINTR("ioctl(I2C_SMBUS \(operation))", subject: "\(bus)@\(I2CError.hex(address))") {
                    body(descriptor.rawValue)
                }
            } catch {
                switch error.errno {
                case ENXIO, EREMOTEIO, ENODEV: throw .noDevice(bus: bus, address: address)
                default: throw .system(bus: bus, error)
                }
            }
        }
    }

    private static func adapterError(_ error: SystemError, bus: String) -> I2CError {
        switch error.errno {
        case ENOTTY, EINVAL: return .notAnAdapter(bus: bus)
        default: return .system(bus: bus, error)
        }
    }
}
#endif
