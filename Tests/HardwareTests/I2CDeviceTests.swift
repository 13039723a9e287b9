import Foundation
import Hardware
import Testing

@Suite("Simulated I2C device")
struct SimulatedI2CDeviceTests {
    /// A BME280-like device: chip id 0x60 at 0xD0, writing 0xB6 to 0xE0 resets it.
    func bme280Like() -> (SimulatedI2CDevice, LockedCounter) {
        let resets = LockedCounter()
        let defaults: [UInt8: UInt8] = [0xD0: 0x60, 0xF4: 0x00]
        let device = SimulatedI2CDevice(
            address: 0x76,
            registers: defaults,
            writeHook: { register, value, registers in
                guard register == 0xE0, value == 0xB6 else { return }
                registers = [UInt8](repeating: 0, count: 256)
                for (register, value) in defaults { registers[Int(register)] = value }
                resets.set(resets.value + 1)
            }
        )
        return (device, resets)
    }

    @Test("registers start from the given values and otherwise zero; writes are stored")
    func byteAccess() throws {
        let (device, _) = bme280Like()
        #expect(try device.readByte(register: 0xD0) == 0x60)
        #expect(try device.readByte(register: 0x00) == 0)
        try device.writeByte(register: 0xF4, value: 0x27)
        #expect(try device.readByte(register: 0xF4) == 0x27)
        #expect(device[0xF4] == 0x27)
        #expect(device.transferCounts.reads == 3 && device.transferCounts.writes == 1)
    }

    @Test("a write hook can reset the device")
    func resetHook() throws {
        let (device, resets) = bme280Like()
        try device.writeByte(register: 0xF4, value: 0x27)
        try device.writeByte(register: 0xE0, value: 0x00)
        #expect(resets.value == 0)
        try device.writeByte(register: 0xE0, value: 0xB6)
        #expect(resets.value == 1)
        #expect(try device.readByte(register: 0xF4) == 0x00)
        #expect(try device.readByte(register: 0xE0) == 0x00)
        #expect(try device.readByte(register: 0xD0) == 0x60)
    }

    @Test("a read hook answers instead of the stored value")
    func readHook() throws {
        let samples = LockedCounter()
        let device = SimulatedI2CDevice(address: 0x48, readHook: { register, _ in
            guard register == 0x00 else { return nil }
            samples.set(samples.value + 1)
            return UInt8(samples.value)
        })
        #expect(try device.readByte(register: 0x00) == 1)
        #expect(try device.readByte(register: 0x00) == 2)
        #expect(try device.readByte(register: 0x01) == 0)
    }

    @Test("block reads and writes auto-increment the register, wrapping after 0xFF")
    func blocks() throws {
        let device = SimulatedI2CDevice()
        try device.writeBlock(register: 0x88, bytes: Array(1...24))
        #expect(try device.readBlock(register: 0x88, count: 24) == Array(1...24))
        #expect(try device.readBlock(register: 0x87, count: 3) == [0, 1, 2])

        try device.writeBlock(register: 0xFE, bytes: [0xAA, 0xBB, 0xCC])
        #expect(device[0xFE] == 0xAA && device[0xFF] == 0xBB && device[0x00] == 0xCC)
        #expect(try device.readBlock(register: 0xFF, count: 2) == [0xBB, 0xCC])
        #expect(try device.readBlock(register: 0, count: 32).count == 32)
    }

    @Test("words are little-endian (SMBus)")
    func words() throws {
        let device = SimulatedI2CDevice(registers: [0x10: 0x34, 0x11: 0x12])
        #expect(try device.readWord(register: 0x10) == 0x1234)
        try device.writeWord(register: 0x20, value: 0xBEEF)
        #expect(device[0x20] == 0xEF && device[0x21] == 0xBE)
    }

    @Test("blocks must be 1…32 bytes", arguments: [0, 33, 100, -1])
    func blockLength(count: Int) {
        let device = SimulatedI2CDevice()
        #expect(throws: I2CError.invalidLength(count: count)) { _ = try device.readBlock(register: 0, count: count) }
        if count >= 0 {
            #expect(throws: I2CError.invalidLength(count: count)) {
                try device.writeBlock(register: 0, bytes: [UInt8](repeating: 1, count: count))
            }
        }
    }

    @Test("an unplugged device fails every call with .noDevice; plugging it back restores it")
    func unplugged() throws {
        let (device, _) = bme280Like()
        device.isPlugged = false
        let expected = I2CError.noDevice(bus: "simulated", address: 0x76)
        #expect(throws: expected) { _ = try device.readByte(register: 0xD0) }
        #expect(throws: expected) { try device.writeByte(register: 0xF4, value: 1) }
        #expect(throws: expected) { _ = try device.readWord(register: 0xD0) }
        #expect(throws: expected) { try device.writeWord(register: 0xD0, value: 1) }
        #expect(throws: expected) { _ = try device.readBlock(register: 0xD0, count: 4) }
        #expect(throws: expected) { try device.writeBlock(register: 0xD0, bytes: [1]) }
        #expect(device[0xF4] == 0x00)
        device.isPlugged = true
        #expect(try device.readByte(register: 0xD0) == 0x60)
    }

    @Test("usable through the protocol from concurrent tasks")
    func concurrentUse() async throws {
        let device: any I2CDevice = SimulatedI2CDevice()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for register in UInt8(0)..<16 {
                group.addTask {
                    for value in UInt8(0)..<50 { try device.writeByte(register: register, value: value) }
                }
            }
            try await group.waitForAll()
        }
        for register in UInt8(0)..<16 {
            #expect(try device.readByte(register: register) == 49)
        }
    }
}

@Suite("Linux I2C device (i2c-dev)")
struct LinuxI2CDeviceTests {
    @Test("a missing bus throws .busMissing naming it")
    func missingBus() {
        #expect(throws: I2CError.busMissing(bus: "/dev/i2c-99")) {
            _ = try LinuxI2CDevice(bus: "/dev/i2c-99", address: 0x76)
        }
        #expect(I2CError.busMissing(bus: "/dev/i2c-99").description.contains("/dev/i2c-99"))
    }

    @Test("something that is not an adapter throws .notAnAdapter")
    func notAnAdapter() {
        #expect(throws: I2CError.notAnAdapter(bus: "/dev/null")) {
            _ = try LinuxI2CDevice(bus: "/dev/null", address: 0x76)
        }
    }

    @Test("addresses outside 0x03…0x77 are rejected", arguments: [UInt8(0x00), 0x02, 0x78, 0x80, 0xFF])
    func invalidAddress(address: UInt8) {
        #expect(throws: I2CError.invalidAddress(address)) {
            _ = try LinuxI2CDevice(bus: "/dev/i2c-1", address: address)
        }
    }

    /// The bus of the kernel's i2c-stub driver, if loaded
    /// (`modprobe i2c-stub chip_addr=0x76` and `modprobe i2c-dev`).
    static let stubBus: String? = {
        let root = "/sys/class/i2c-dev"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: root) else { return nil }
        for entry in entries.sorted() {
            let name = (try? String(contentsOfFile: "\(root)/\(entry)/name", encoding: .utf8)) ?? ""
            if name.contains("SMBus stub driver"), FileManager.default.fileExists(atPath: "/dev/\(entry)") {
                return "/dev/\(entry)"
            }
        }
        return nil
    }()

    @Test(
        "byte, word and block transfers on the kernel's i2c-stub at 0x76",
        .enabled(if: stubBus != nil, "no i2c-stub bus: run `modprobe i2c-dev; modprobe i2c-stub chip_addr=0x76` (not possible in this container)")
    )
    func i2cStub() throws {
        let bus = try #require(Self.stubBus)
        let device = try LinuxI2CDevice(bus: bus, address: 0x76)
        defer { device.close() }
        try device.writeByte(register: 0xF4, value: 0x27)
        #expect(try device.readByte(register: 0xF4) == 0x27)
        try device.writeWord(register: 0x20, value: 0xBEEF)
        #expect(try device.readWord(register: 0x20) == 0xBEEF)
        try device.writeBlock(register: 0x88, bytes: Array(1...24))
        #expect(try device.readBlock(register: 0x88, count: 24) == Array(1...24))

        // Nothing at 0x77 on the stub: a typed .noDevice, not a crash.
        let absent = try LinuxI2CDevice(bus: bus, address: 0x77)
        #expect(throws: I2CError.noDevice(bus: bus, address: 0x77)) { _ = try absent.readByte(register: 0xD0) }

        device.close()
        #expect(throws: I2CError.closed(bus: bus)) { _ = try device.readByte(register: 0xF4) }
    }
}
