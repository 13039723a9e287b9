import CGPIOD

/// The real GPIO driver: libgpiod through the CGPIOD shim (v1 or v2, chosen at build time).
///
/// Stateless; every chip and request it returns owns its own handle.
public struct LibgpiodDriver: GPIODriver {
    public init() {}

    /// The libgpiod API the shim was built against: 1 or 2 (`dgpio_api_version`).
    public static var apiVersion: Int { Int(dgpio_api_version()) }
    /// The library's version string, e.g. `"1.6.3"`.
    public static var libraryVersion: String { String(cString: dgpio_library_version()) }

    public var backendDescription: String { "libgpiod v\(Self.apiVersion) (\(Self.libraryVersion))" }

    public func listChips() throws(GPIOError) -> [GPIOChipInfo] {
        var capacity = 16
        while true {
            var buffer = [dgpio_chip_info](repeating: dgpio_chip_info(), count: capacity)
            let wanted = UInt32(capacity)
            let count = try Libgpiod.call("list chips") { dgpio_list_chips(&buffer, wanted) }
            if count <= capacity {
                return buffer.prefix(count).map(GPIOChipInfo.init)
            }
            capacity = count
        }
    }

    public func openChip(path: String) throws(GPIOError) -> any GPIOChipHandle {
        try open("open chip by path", chip: path) { dgpio_chip_open_path(path, &$0) }
    }

    public func openChip(name: String) throws(GPIOError) -> any GPIOChipHandle {
        try open("open chip by name", chip: name) { dgpio_chip_open_name(name, &$0) }
    }

    public func openChip(label: String) throws(GPIOError) -> any GPIOChipHandle {
        try open("open chip by label", chip: label) { dgpio_chip_open_label(label, &$0) }
    }

    private func open(
        _ operation: String,
        chip: String,
        _ body: (inout OpaquePointer?) -> Int32
    ) throws(GPIOError) -> any GPIOChipHandle {
        var pointer: OpaquePointer?
        try Libgpiod.call(operation, chip: chip, opening: true) { body(&pointer) }
        guard let pointer else {
            preconditionFailure("dgpio open succeeded without a handle")
        }
        return LibgpiodChipHandle(pointer, displayName: chip)
    }
}
