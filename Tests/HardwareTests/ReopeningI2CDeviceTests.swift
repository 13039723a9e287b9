#if os(Linux)
import Foundation
import Hardware
import Testing

@Suite("Reopening I2C device (a bus that appears after start)")
struct ReopeningI2CDeviceTests {
    @Test("nothing is opened at init; every transfer tries the bus again, so a path that appears later is seen")
    func reopensUntilTheBusExists() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("drift-i2c-\(UUID().uuidString)").path
        let device = ReopeningI2CDevice(bus: path, address: 0x76)
        #expect(throws: I2CError.busMissing(bus: path)) { _ = try device.readByte(register: 0xD0) }
        #expect(throws: I2CError.busMissing(bus: path)) { _ = try device.readBlock(register: 0x88, count: 26) }
        // Something appears at the path (here a plain file, so the adapter check fails next).
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: I2CError.notAnAdapter(bus: path)) { _ = try device.readByte(register: 0xD0) }
        device.close()
    }
}
#endif
