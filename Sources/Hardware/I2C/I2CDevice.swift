/// One device on an I2C bus, addressed by register (the SMBus "data" transfers
/// that sensors such as the BME280 use).
///
/// Calls are synchronous and short (a few hundred microseconds at 100 kHz; a
/// 32-byte block is about 3 ms) and safe from any task; each throws an
/// ``I2CError`` naming the bus and address.
public protocol I2CDevice: Sendable {
    /// The bus device, e.g. `/dev/i2c-1`.
    var bus: String { get }
    /// The 7-bit device address, e.g. `0x76`.
    var address: UInt8 { get }

    /// SMBus "read byte data": the value of `register`.
    func readByte(register: UInt8) throws(I2CError) -> UInt8
    /// SMBus "write byte data".
    func writeByte(register: UInt8, value: UInt8) throws(I2CError)
    /// SMBus "read word data": `register` (low byte) and `register + 1` (high byte), little-endian.
    func readWord(register: UInt8) throws(I2CError) -> UInt16
    /// SMBus "write word data", little-endian.
    func writeWord(register: UInt8, value: UInt16) throws(I2CError)
    /// "I2C block read": `count` (1…32) consecutive registers from `register`,
    /// relying on the device's register auto-increment.
    func readBlock(register: UInt8, count: Int) throws(I2CError) -> [UInt8]
    /// "I2C block write": `bytes` (1…32) to consecutive registers from `register`.
    func writeBlock(register: UInt8, bytes: [UInt8]) throws(I2CError)
}

/// Throws ``I2CError/invalidLength(count:)`` unless `count` is 1…32 (`I2C_SMBUS_BLOCK_MAX`).
func validateI2CBlock(count: Int) throws(I2CError) {
    guard (1...32).contains(count) else { throw .invalidLength(count: count) }
}
