/// One serial port found by ``SerialPorts/list()``: what `selftest` shows and
/// uses to find, e.g., a Meshtastic node by its USB vendor and product IDs.
public struct SerialPortInfo: Sendable, Hashable, Codable {
    /// How the port is attached (libserialport's `sp_transport`).
    public enum Transport: String, Sendable, Hashable, Codable {
        /// A UART on the board (`SP_TRANSPORT_NATIVE`), e.g. `/dev/ttyAMA0`, `/dev/ttyS0`.
        case native
        /// A USB serial or CDC-ACM device (`SP_TRANSPORT_USB`), e.g. `/dev/ttyUSB0`, `/dev/ttyACM0`.
        case usb
        /// A Bluetooth serial link (`SP_TRANSPORT_BLUETOOTH`), e.g. `/dev/rfcomm0`.
        case bluetooth
        /// A value this build does not know.
        case unknown
    }

    /// The device node, e.g. `/dev/ttyACM0`.
    public var path: String
    public var transport: Transport
    /// libserialport's human-readable description (USB product string, or the device name).
    public var description: String?
    /// USB vendor ID (e.g. `0x239A`), USB ports only.
    public var usbVendorID: UInt16?
    /// USB product ID, USB ports only.
    public var usbProductID: UInt16?
    /// USB bus number and device address, USB ports only.
    public var usbBus: Int?
    public var usbAddress: Int?
    /// USB manufacturer, product and serial-number strings, when the device reports them.
    public var manufacturer: String?
    public var product: String?
    public var serialNumber: String?
    /// The Bluetooth MAC address, Bluetooth ports only.
    public var bluetoothAddress: String?

    public init(
        path: String,
        transport: Transport,
        description: String? = nil,
        usbVendorID: UInt16? = nil,
        usbProductID: UInt16? = nil,
        usbBus: Int? = nil,
        usbAddress: Int? = nil,
        manufacturer: String? = nil,
        product: String? = nil,
        serialNumber: String? = nil,
        bluetoothAddress: String? = nil
    ) {
        self.path = path
        self.transport = transport
        self.description = description
        self.usbVendorID = usbVendorID
        self.usbProductID = usbProductID
        self.usbBus = usbBus
        self.usbAddress = usbAddress
        self.manufacturer = manufacturer
        self.product = product
        self.serialNumber = serialNumber
        self.bluetoothAddress = bluetoothAddress
    }

    /// `"vvvv:pppp"` in lowercase hex (as `lsusb` prints), when both IDs are known.
    public var usbID: String? {
        guard let usbVendorID, let usbProductID else { return nil }
        return hex4(usbVendorID) + ":" + hex4(usbProductID)
    }

    private func hex4(_ value: UInt16) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
