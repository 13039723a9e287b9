import CDriftSys
import DriftSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The in-memory chips behind ``SimulatedGPIODriver`` and its handles.
///
/// Behaves like the kernel where the shim can tell: values and edges are
/// logical (active-low inverts), an unrequested input floats to its bias
/// (pull-up reads high, anything else low), a requested line is busy for
/// others, a vanished chip fails with `ENODEV`. Each input request has a
/// real pipe whose read end polls readable while events are queued.
final class SimulatedGPIOBoard: Sendable {
    /// Most queued events per request; further edges are dropped and counted (as the kernel's FIFO does).
    static let queueLimit = 1024

    let now: @Sendable () -> Duration
    let state = Mutex(State())

    init(now: @escaping @Sendable () -> Duration) {
        self.now = now
    }

    struct Line {
        var name: String
        /// Level the outside world drives (`nil`: nothing connected, the bias decides).
        var external: Bool?
        var bias = GPIOBias.asIs
        var activeLow = false
        var requestID: Int?
        var consumer = ""
        var isOutput = false
        /// Logical value driven while an output.
        var outputValue = false

        /// Electrical level on the pin.
        var physical: Bool { isOutput ? outputValue != activeLow : external ?? (bias == .pullUp) }
        /// Level as the requester sees it.
        var logical: Bool { physical != activeLow }
    }

    struct Chip {
        let id: Int
        var info: GPIOChipInfo
        var lines: [Line]
        var vanished = false
    }

    struct Request {
        let id: Int
        let chipID: Int
        let offsets: [UInt32]
        let isInput: Bool
        var queue: [GPIOEdgeEvent] = []
        /// Pipe for inputs: the handle polls `read`, the board writes a byte per delivery.
        let pipe: (read: FileDescriptor, write: FileDescriptor)?
    }

    struct State {
        var chips: [Chip] = []
        var requests: [Int: Request] = [:]
        var nextID = 1
        var droppedEvents = 0

        mutating func makeID() -> Int {
            defer { nextID += 1 }
            return nextID
        }

        /// Index of a live chip by id; vanished chips fail with `ENODEV`.
        func chipIndex(_ id: Int, operation: String, line: String? = nil) throws(GPIOError) -> Int {
            guard let index = chips.firstIndex(where: { $0.id == id }) else {
                throw GPIOError(.released, operation: operation, line: line)
            }
            if chips[index].vanished {
                throw GPIOError(errno: ENODEV, operation: operation, chip: chips[index].info.name, line: line)
            }
            return index
        }

        /// Index of a live chip by kernel name, for the control API.
        func chipIndex(named name: String, operation: String) throws(GPIOError) -> Int {
            guard let index = chips.firstIndex(where: { $0.info.name == name && !$0.vanished }) else {
                throw GPIOError(errno: ENOENT, operation: operation, chip: name, opening: true)
            }
            return index
        }

        func checkOffset(_ offset: UInt32, chip index: Int, operation: String) throws(GPIOError) {
            guard Int(offset) < chips[index].lines.count else {
                throw GPIOError(.lineNotFound, operation: operation, chip: chips[index].info.name, line: "\(offset)")
            }
        }

        /// The live request `id` and its chip index.
        func request(_ id: Int, operation: String) throws(GPIOError) -> (request: Request, chip: Int) {
            guard let request = requests[id] else {
                throw GPIOError(.released, operation: operation)
            }
            return (request, try chipIndex(request.chipID, operation: operation, line: GPIOChip.describe(request.offsets)))
        }

        /// Queues `event` for the input request holding the line, and signals its pipe.
        mutating func deliver(_ event: GPIOEdgeEvent, to id: Int) {
            guard var request = requests[id], request.isInput else { return }
            if request.queue.count >= SimulatedGPIOBoard.queueLimit {
                droppedEvents += 1
                return
            }
            request.queue.append(event)
            requests[id] = request
            request.pipe.map(Self.signal)
        }

        /// Makes the read end readable; a full pipe is readable already.
        static func signal(_ pipe: (read: FileDescriptor, write: FileDescriptor)) {
            _ = try? [UInt8(1)].withUnsafeBytes { bytes throws(SystemError) in try pipe.write.write(bytes) }
        }

        /// Empties the pipe's read end.
        static func drain(_ pipe: (read: FileDescriptor, write: FileDescriptor)) {
            var scratch = [UInt8](repeating: 0, count: 64)
            while true {
                let count = try? scratch.withUnsafeMutableBytes { bytes throws(SystemError) in try pipe.read.read(into: bytes) }
                guard let count, count > 0 else { return }
            }
        }
    }
}
