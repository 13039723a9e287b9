import CGPIOD
import DriftSystem
import Synchronization

/// A `dgpio_request`. Calls are serialised; ``release()`` is idempotent and happens in `deinit`.
final class LibgpiodRequestHandle: GPIORequestHandle {
    let offsets: [UInt32]
    let eventDescriptor: FileDescriptor?
    private let pointer: Mutex<ShimHandle?>
    private let chip: String
    private let lines: String

    /// Takes ownership of `request`; releases it if its event fd cannot be had.
    init(_ request: OpaquePointer, offsets: [UInt32], chip: String, isInput: Bool) throws(GPIOError) {
        var descriptor: FileDescriptor?
        if isInput {
            let fd = dgpio_request_event_fd(request)
            guard fd >= 0 else {
                dgpio_request_release(request)
                throw GPIOError(errno: -fd, operation: "event fd", chip: chip, line: GPIOChip.describe(offsets))
            }
            descriptor = FileDescriptor(rawValue: fd)
        }
        self.offsets = offsets
        self.chip = chip
        self.lines = GPIOChip.describe(offsets)
        self.eventDescriptor = descriptor
        self.pointer = Mutex(ShimHandle(raw: request))
    }

    deinit { release() }

    func readEvents(maxCount: Int) throws(GPIOError) -> [GPIOEdgeEvent] {
        precondition(maxCount > 0, "readEvents needs room for at least one event")
        return try withRequest("read events") { request throws(GPIOError) in
            var buffer = [dgpio_event](repeating: dgpio_event(), count: maxCount)
            let capacity = UInt32(maxCount)
            let count = try Libgpiod.call("read events", chip: chip, line: lines) {
                dgpio_request_read_events(request, &buffer, capacity)
            }
            return buffer.prefix(count).map(GPIOEdgeEvent.init)
        }
    }

    func getValues() throws(GPIOError) -> [Bool] {
        try withRequest("get values") { request throws(GPIOError) in
            var values = [Int32](repeating: 0, count: offsets.count)
            let count = UInt32(values.count)
            try Libgpiod.call("get values", chip: chip, line: lines) {
                dgpio_request_get_values(request, &values, count)
            }
            return values.map { $0 != 0 }
        }
    }

    func setValues(_ values: [Bool]) throws(GPIOError) {
        let levels = values.map { Int32($0 ? 1 : 0) }
        _ = try withRequest("set values") { request throws(GPIOError) in
            try Libgpiod.call("set values", chip: chip, line: lines) {
                dgpio_request_set_values(request, levels, UInt32(levels.count))
            }
        }
    }

    func release() {
        pointer.withLock { pointer in
            dgpio_request_release(pointer?.raw)
            pointer = nil
        }
    }

    /// Runs `body` with the live request, or throws ``GPIOError/Kind/released`` once released.
    private func withRequest<Result: Sendable>(
        _ operation: String,
        _ body: (OpaquePointer) throws(GPIOError) -> Result
    ) throws(GPIOError) -> Result {
        try pointer.withLock { (pointer: inout ShimHandle?) throws(GPIOError) -> Result in
            guard let request = pointer?.raw else {
                throw GPIOError(.released, operation: operation, chip: chip, line: lines)
            }
            return try body(request)
        }
    }
}
