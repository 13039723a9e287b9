import DriftSystem
import Foundation
import Hardware
import Logging
import Testing
import TestSupport

/// Backend choice, symlinks, open errors and port listing.
@Suite("Serial backend selection and open errors")
struct SerialBackendSelectionTests {
    @Test("a pseudo-terminal gets termios, and the log says why")
    func ptyUsesTermios() async throws {
        let pair = try PseudoTerminalPair()
        let log = CapturedLog()
        let port = try SerialPorts.open(path: pair.slavePath, logger: log.logger())
        defer { port.close() }
        #expect(port.backend == .termios)
        #expect(port is TermiosSerialPort)
        #expect(port.path == pair.slavePath)

        let opened = try #require(log.all.first { $0.metadata["backend"] != nil })
        #expect(opened.level == .info)
        #expect(opened.metadata["backend"] == "termios")
        #expect(opened.metadata["device"] == pair.slavePath)
        let name = (pair.slavePath as NSString).lastPathComponent
        #expect(opened.metadata["reason"]?.contains("/sys/class/tty/\(name)") == true)
    }

    @Test("libserialport itself refuses a pseudo-terminal with a typed error")
    func libserialportRefusesPty() throws {
        let pair = try PseudoTerminalPair()
        #expect {
            _ = try LibserialportPort(path: pair.slavePath)
        } throws: { error in
            guard case SerialError.notSupported(let path, _) = error else { return false }
            return path == pair.slavePath
        }
    }

    @Test("a symlink is resolved before opening; the port reports the real device")
    func symlinkResolved() async throws {
        let pair = try PseudoTerminalPair()
        let directory = try SerialTemporaryDirectory()
        let link = directory.path + "/serial0"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pair.slavePath)
        let log = CapturedLog()
        let port = try SerialPorts.open(path: link, settings: SerialSettings(baudRate: 115_200), logger: log.logger())
        defer { port.close() }
        #expect(port.path == pair.slavePath)
        #expect(port.backend == .termios)
        let opened = try #require(log.all.first { $0.metadata["backend"] != nil })
        #expect(opened.metadata["path"] == link)
        #expect(opened.metadata["device"] == pair.slavePath)

        try pair.write([0xA5])
        #expect(try await readExactly(port, count: 1) == [0xA5])
    }

    @Test("an unsupported baud rate is rejected before the device is touched")
    func unsupportedBaud() throws {
        let pair = try PseudoTerminalPair()
        for baudRate in [0, 300, 12345, 1_000_000, -9600] {
            #expect(throws: SerialError.unsupportedBaud(path: pair.slavePath, baudRate: baudRate)) {
                _ = try SerialPorts.open(path: pair.slavePath, settings: SerialSettings(baudRate: baudRate))
            }
        }
        // Not even opened: a missing device still reports the baud rate first.
        #expect(throws: SerialError.unsupportedBaud(path: "/dev/does-not-exist", baudRate: 12345)) {
            _ = try SerialPorts.open(path: "/dev/does-not-exist", settings: SerialSettings(baudRate: 12345))
        }
    }

    @Test("a missing device is .notFound, also through a dangling link")
    func notFound() throws {
        #expect(throws: SerialError.notFound(path: "/dev/ttyDRIFT-missing")) {
            _ = try SerialPorts.open(path: "/dev/ttyDRIFT-missing")
        }
        let directory = try SerialTemporaryDirectory()
        let link = directory.path + "/dangling"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/ttyDRIFT-missing")
        #expect(throws: SerialError.notFound(path: link)) {
            _ = try SerialPorts.open(path: link)
        }
        #expect(throws: SerialError.notFound(path: "/dev/ttyDRIFT-missing")) {
            _ = try TermiosSerialPort(path: "/dev/ttyDRIFT-missing")
        }
    }

    @Test("a device or file that is not a terminal is .notATerminal")
    func notATerminal() throws {
        #expect(throws: SerialError.notATerminal(path: "/dev/null")) {
            _ = try SerialPorts.open(path: "/dev/null")
        }
        let directory = try SerialTemporaryDirectory()
        let file = directory.path + "/plain.txt"
        try Data("not a tty".utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: SerialError.notATerminal(path: file)) {
            _ = try SerialPorts.open(path: file)
        }
    }

    @Test("list() enumerates without crashing and never lists pseudo-terminals")
    func listPorts() throws {
        let pair = try PseudoTerminalPair()
        let ports = try SerialPorts.list()
        print("SerialPorts.list() found \(ports.count) port(s): \(ports.map(\.path))")
        for port in ports {
            #expect(port.path.hasPrefix("/dev/"))
            #expect(port.path != pair.slavePath)
            if port.transport != .usb {
                #expect(port.usbVendorID == nil && port.usbProductID == nil)
            }
        }
        #expect(ports.map(\.path) == ports.map(\.path).sorted())

        let decoded = try JSONDecoder().decode([SerialPortInfo].self, from: JSONEncoder().encode(ports))
        #expect(decoded == ports)
    }

    @Test("SerialPortInfo encodes for selftest --json and formats USB IDs like lsusb")
    func portInfoCodable() throws {
        let node = SerialPortInfo(
            path: "/dev/ttyACM0", transport: .usb, description: "RAK4631",
            usbVendorID: 0x239A, usbProductID: 0x8029, usbBus: 1, usbAddress: 4,
            manufacturer: "RAKwireless", product: "WisCore RAK4631 Board", serialNumber: "E3A1B2C3"
        )
        #expect(node.usbID == "239a:8029")
        #expect(SerialPortInfo(path: "/dev/ttyAMA0", transport: .native).usbID == nil)

        let json = try JSONEncoder().encode(node)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["transport"] as? String == "usb")
        #expect(object["usbVendorID"] as? Int == 0x239A)
        #expect(try JSONDecoder().decode(SerialPortInfo.self, from: json) == node)
    }
}
