import CSerialPort
import DriftSystem
import Foundation
import Logging

/// Opening and listing serial ports; chooses the backend per port.
public enum SerialPorts {
    /// Opens a serial port, choosing the backend for the device.
    ///
    /// 1. The settings are validated (`.unsupportedBaud` before anything is opened).
    /// 2. `path` is resolved with `realpath` (libserialport rejects symlinks such
    ///    as `/dev/serial0` or `/dev/serial/by-id/…`); the port's ``SerialPort/path``
    ///    is the resolved device.
    /// 3. If `/sys/class/tty/<name>` exists the device is a kernel serial device
    ///    and ``LibserialportPort`` is tried. If libserialport refuses it for any
    ///    reason other than permission, busy or missing device, it falls back.
    /// 4. Otherwise (pseudo-terminals have no sysfs entry) ``TermiosSerialPort``.
    ///
    /// The choice and its reason are logged at `info` level (`backend`, `reason`).
    /// - Throws: ``SerialError``.
    public static func open(
        path: String,
        settings: SerialSettings = SerialSettings(),
        logger: Logger = Logger(label: "drift.serial")
    ) throws(SerialError) -> any SerialPort {
        try settings.validate(path: path)
        let device: String
        do {
            device = try Syscall.realPath(path)
        } catch {
            throw SerialError.opening(error, path: path)
        }
        let name = (device as NSString).lastPathComponent
        let sysfsEntry = sysfsTTYDirectory + "/" + name

        let reason: String
        if FileManager.default.fileExists(atPath: sysfsEntry) {
            do {
                let port = try LibserialportPort(path: device, settings: settings, logger: logger)
                log(logger, path: path, device: device, backend: .libserialport, settings: settings,
                    reason: "kernel serial device (\(sysfsEntry) exists) and libserialport opened it")
                return port
            } catch {
                switch error {
                case .notFound, .permissionDenied, .busy, .unsupportedBaud:
                    throw error
                default:
                    reason = "libserialport refused it (\(error)); using termios"
                }
            }
        } else {
            reason = "no \(sysfsEntry) (not a kernel serial device, e.g. a pseudo-terminal), which libserialport requires"
        }
        let port = try TermiosSerialPort(path: device, settings: settings, logger: logger)
        log(logger, path: path, device: device, backend: .termios, settings: settings, reason: reason)
        return port
    }

    /// All serial ports libserialport finds (`sp_list_ports`), sorted by path.
    ///
    /// Returns `[]` on a machine without serial ports. Pseudo-terminals are never listed.
    /// - Throws: ``SerialError/system(path:_:)`` (path `"sp_list_ports"`) if enumeration fails.
    public static func list() throws(SerialError) -> [SerialPortInfo] {
        var list: UnsafeMutablePointer<OpaquePointer?>?
        try LibserialportPort.check(sp_list_ports(&list), "sp_list_ports", path: "sp_list_ports")
        guard let list else { return [] }
        defer { sp_free_port_list(list) }
        var ports: [SerialPortInfo] = []
        var index = 0
        while let port = list[index] {
            ports.append(info(for: port))
            index += 1
        }
        return ports.sorted { $0.path < $1.path }
    }

    /// Where the kernel lists tty devices; a device with an entry here is one libserialport can open.
    static let sysfsTTYDirectory = "/sys/class/tty"

    private static func info(for port: OpaquePointer) -> SerialPortInfo {
        func string(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
            guard let pointer else { return nil }
            let value = String(cString: pointer)
            return value.isEmpty ? nil : value
        }
        let transport: SerialPortInfo.Transport
        switch sp_get_port_transport(port) {
        case SP_TRANSPORT_NATIVE: transport = .native
        case SP_TRANSPORT_USB: transport = .usb
        case SP_TRANSPORT_BLUETOOTH: transport = .bluetooth
        default: transport = .unknown
        }
        var info = SerialPortInfo(
            path: string(sp_get_port_name(port)) ?? "",
            transport: transport,
            description: string(sp_get_port_description(port))
        )
        if transport == .usb {
            var vendor: CInt = 0
            var product: CInt = 0
            if sp_get_port_usb_vid_pid(port, &vendor, &product) == SP_OK {
                info.usbVendorID = UInt16(truncatingIfNeeded: vendor)
                info.usbProductID = UInt16(truncatingIfNeeded: product)
            }
            var bus: CInt = 0
            var address: CInt = 0
            if sp_get_port_usb_bus_address(port, &bus, &address) == SP_OK {
                info.usbBus = Int(bus)
                info.usbAddress = Int(address)
            }
            info.manufacturer = string(sp_get_port_usb_manufacturer(port))
            info.product = string(sp_get_port_usb_product(port))
            info.serialNumber = string(sp_get_port_usb_serial(port))
        }
        if transport == .bluetooth {
            info.bluetoothAddress = string(sp_get_port_bluetooth_address(port))
        }
        return info
    }

    private static func log(
        _ logger: Logger, path: String, device: String, backend: SerialBackend,
        settings: SerialSettings, reason: String
    ) {
        logger.info(
            "serial port opened with \(backend)",
            metadata: [
                "path": "\(path)",
                "device": "\(device)",
                "backend": "\(backend)",
                "settings": "\(settings)",
                "reason": "\(reason)",
            ]
        )
    }
}
