import DriftSystem

/// The low-level GPIO interface, one method per function of the C shim
/// (`Sources/CGPIOD/include/drift_gpiod.h`).
///
/// ``LibgpiodDriver`` calls libgpiod; ``SimulatedGPIODriver`` keeps chips in
/// memory. Application code uses ``GPIOChip`` on top of either.
public protocol GPIODriver: Sendable {
    /// What backs this driver, e.g. `"libgpiod v1 (1.6.3)"` or `"simulated"`.
    var backendDescription: String { get }
    /// All chips, in the driver's order (`dgpio_list_chips`).
    func listChips() throws(GPIOError) -> [GPIOChipInfo]
    /// `dgpio_chip_open_path`.
    func openChip(path: String) throws(GPIOError) -> any GPIOChipHandle
    /// `dgpio_chip_open_name`: `/dev/<name>`.
    func openChip(name: String) throws(GPIOError) -> any GPIOChipHandle
    /// `dgpio_chip_open_label`: the first chip with that label.
    func openChip(label: String) throws(GPIOError) -> any GPIOChipHandle
}

/// An open chip (`dgpio_chip`). Requests made from it stay valid after ``close()``.
public protocol GPIOChipHandle: AnyObject, Sendable {
    /// `dgpio_chip_get_info`.
    func info() throws(GPIOError) -> GPIOChipInfo
    /// `dgpio_chip_find_line`: offset of the first line with that name.
    func findLine(named name: String) throws(GPIOError) -> UInt32
    /// `dgpio_chip_line_info`.
    func lineInfo(offset: UInt32) throws(GPIOError) -> GPIOLineInfo
    /// `dgpio_request_input`: inputs with both-edge events.
    func requestInput(offsets: [UInt32], consumer: String, bias: GPIOBias, activeLow: Bool) throws(GPIOError) -> any GPIORequestHandle
    /// `dgpio_request_output`: outputs driven to `values` (logical, one per offset).
    func requestOutput(offsets: [UInt32], consumer: String, activeLow: Bool, values: [Bool]) throws(GPIOError) -> any GPIORequestHandle
    /// `dgpio_chip_close`; idempotent. Later calls throw ``GPIOError/Kind/released``.
    func close()
}

/// Requested lines (`dgpio_request`).
public protocol GPIORequestHandle: AnyObject, Sendable {
    /// The requested offsets, in request order.
    var offsets: [UInt32] { get }
    /// `dgpio_request_event_fd`: readable while events are pending; `nil` for outputs.
    /// Owned by the handle: never close it, and stop watching it before ``release()``.
    var eventDescriptor: FileDescriptor? { get }
    /// `dgpio_request_read_events`: pending events (empty if none), never blocks.
    func readEvents(maxCount: Int) throws(GPIOError) -> [GPIOEdgeEvent]
    /// `dgpio_request_get_values`: logical values in request order.
    func getValues() throws(GPIOError) -> [Bool]
    /// `dgpio_request_set_values`: logical values in request order (outputs).
    func setValues(_ values: [Bool]) throws(GPIOError)
    /// `dgpio_request_release`; idempotent. Later calls throw ``GPIOError/Kind/released``.
    func release()
}
