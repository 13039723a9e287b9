import CDriftSys
import DriftSystem
import Foundation
import Hardware
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Serial ports over real pseudo-terminal pairs: the test plays the device on the master side.
@Suite("Serial ports over pseudo-terminals")
struct SerialPseudoTerminalTests {
    @Test("bytes flow both ways and the baud rate is applied", arguments: [9600, 38400, 115_200])
    func bytesBothWays(baudRate: Int) async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath, settings: SerialSettings(baudRate: baudRate))
        defer { port.close() }
        #expect(port.backend == .termios)
        #expect(port.settings.baudRate == baudRate)

        var attributes = try pair.slaveAttributes()
        #expect(cfgetospeed(&attributes) == speedConstant(baudRate))
        #expect(cfgetispeed(&attributes) == speedConstant(baudRate))

        let fromDevice = Array("$GPGGA,hello from the device*00\r\n".utf8)
        try pair.write(fromDevice)
        #expect(try await readExactly(port, count: fromDevice.count) == fromDevice)

        let toDevice = Array("to the device at \(baudRate)\r\n".utf8)
        try await port.write(toDevice)
        try await port.drain()
        #expect(try await pair.read(count: toDevice.count) == toDevice)
    }

    @Test("raw mode: 8N1, no echo, no CR/LF translation, every byte value unchanged")
    func rawMode() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath, settings: SerialSettings(baudRate: 115_200))
        defer { port.close() }

        let attributes = try pair.slaveAttributes()
        #expect(attributes.c_lflag & tcflag_t(ECHO | ICANON | ISIG | IEXTEN) == 0)
        #expect(attributes.c_iflag & tcflag_t(ICRNL | INLCR | IGNCR | IXON | IXOFF | ISTRIP) == 0)
        #expect(attributes.c_oflag & tcflag_t(OPOST) == 0)
        #expect(attributes.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8))
        #expect(attributes.c_cflag & tcflag_t(PARENB | CSTOPB) == 0)
        #expect(attributes.c_cflag & tcflag_t(truncatingIfNeeded: CRTSCTS) == 0)
        #expect(attributes.c_cflag & tcflag_t(CLOCAL | CREAD) == tcflag_t(CLOCAL | CREAD))
        let vmin = withUnsafeBytes(of: attributes.c_cc) { $0[Int(VMIN)] }
        let vtime = withUnsafeBytes(of: attributes.c_cc) { $0[Int(VTIME)] }
        #expect(vmin == 1 && vtime == 0)

        let everyByte = Array("\r\n".utf8) + (0...255).map { UInt8($0) } + Array("\r\n\n\r".utf8)
        try pair.write(everyByte)
        #expect(try await readExactly(port, count: everyByte.count) == everyByte)

        // Anything echoed would already be queued on the master before the port
        // reads; the marker written afterwards must be the first thing there.
        let marker = Array("<marker>".utf8)
        try await port.write(marker)
        #expect(try await pair.read(until: marker) == marker, "the port echoed input back")

        try await port.write(everyByte)
        #expect(try await pair.read(count: everyByte.count) == everyByte)
    }

    /// A command sent right after the awaited one (the GPS saver's next sleep command after a
    /// wake-up) arrives in the same read: it must neither hide the marker nor be lost.
    @Test("the pty helper's read(until:) returns up to the marker's first appearance and keeps what followed it for the next read")
    func readUntilKeepsTheRest() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath, settings: SerialSettings(baudRate: 115_200))
        defer { port.close() }
        let wake = [UInt8](repeating: 0xFF, count: 8)
        try await port.write(Array("before".utf8) + wake + Array("after".utf8) + wake + [1])
        try await port.drain()
        #expect(try await pair.read(until: wake) == Array("before".utf8) + wake)
        #expect(try await pair.read(until: wake) == Array("after".utf8) + wake)
        #expect(try await pair.read(count: 1) == [1])
        #expect(try await pair.read(until: wake, timeout: .milliseconds(50)).isEmpty)
    }

    @Test("framing settings reach the pty: stop bits, RTS/CTS, parity sense, speed")
    func framingSettingsOnPty() async throws {
        // The pty driver keeps CSTOPB, CRTSCTS and PARODD but forces CS8 and
        // clears PARENB (pty_set_termios); the full framing is checked on the
        // attributes themselves in SerialTerminalAttributesTests.
        let pair = try PseudoTerminalPair()
        let settings = SerialSettings(baudRate: 19200, dataBits: .seven, parity: .odd, stopBits: .two, flowControl: .rtsCts)
        let port = try SerialPorts.open(path: pair.slavePath, settings: settings)
        var attributes = try pair.slaveAttributes()
        #expect(attributes.c_cflag & tcflag_t(PARODD) != 0)
        #expect(attributes.c_cflag & tcflag_t(CSTOPB) != 0)
        #expect(attributes.c_cflag & tcflag_t(truncatingIfNeeded: CRTSCTS) != 0)
        #expect(cfgetospeed(&attributes) == speedConstant(19200))
        port.close()

        let plain = try SerialPorts.open(path: pair.slavePath, settings: SerialSettings(baudRate: 4800))
        defer { plain.close() }
        attributes = try pair.slaveAttributes()
        #expect(attributes.c_cflag & tcflag_t(PARODD | CSTOPB) == 0)
        #expect(attributes.c_cflag & tcflag_t(truncatingIfNeeded: CRTSCTS) == 0)
        #expect(cfgetospeed(&attributes) == speedConstant(4800))
    }

    @Test("a read that times out returns an empty array")
    func readTimeout() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath)
        defer { port.close() }
        #expect(try await port.read(upTo: 64, timeout: .milliseconds(100)) == [])
        #expect(try await port.read(upTo: 64, timeout: .zero) == [])
        // Input that arrives later is still delivered.
        try pair.write([0x42])
        #expect(try await port.read(upTo: 64, timeout: .seconds(5)) == [0x42])
    }

    @Test("read(upTo:) returns at most the requested count and keeps the rest")
    func readUpTo() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath)
        defer { port.close() }
        try pair.write(Array(1...10))
        #expect(try await readExactly(port, count: 4) == [1, 2, 3, 4])
        #expect(try await readExactly(port, count: 6) == [5, 6, 7, 8, 9, 10])
    }
}

/// The termios speed constant for `baudRate`.
func speedConstant(_ baudRate: Int) -> speed_t {
    switch baudRate {
    case 4800: return speed_t(B4800)
    case 9600: return speed_t(B9600)
    case 19200: return speed_t(B19200)
    case 38400: return speed_t(B38400)
    case 115_200: return speed_t(B115200)
    default: return 0
    }
}
