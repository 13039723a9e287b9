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

/// A ``GPIODriver`` over in-memory chips, for tests and the simulated board.
///
/// Chips have named lines like a Raspberry Pi's (`"GPIO17"`). The control API
/// plays the outside world: ``drive(chip:offset:to:at:)`` sets the level on
/// an input pin (queueing an edge event when the requester's logical value
/// changes), ``level(chip:offset:)`` reads what an output drives, and
/// ``removeChip(named:)`` makes a chip vanish like an unplugged USB expander.
/// Input requests get a real pipe as event descriptor, so the same
/// readiness code runs as with libgpiod.
public final class SimulatedGPIODriver: GPIODriver {
    let board: SimulatedGPIOBoard

    /// - Parameter now: timestamps for edges driven without an explicit time;
    ///   defaults to `CLOCK_MONOTONIC` like the kernel's.
    public init(now: @escaping @Sendable () -> Duration = { MonotonicTime.now() }) {
        self.board = SimulatedGPIOBoard(now: now)
    }

    public var backendDescription: String { "simulated" }

    // MARK: GPIODriver

    public func listChips() throws(GPIOError) -> [GPIOChipInfo] {
        board.listChips()
    }

    public func openChip(path: String) throws(GPIOError) -> any GPIOChipHandle {
        try handle(board.openChip("open chip by path", displayName: path) { $0.path == path })
    }

    public func openChip(name: String) throws(GPIOError) -> any GPIOChipHandle {
        guard !name.isEmpty, !name.contains("/") else {
            throw GPIOError(errno: EINVAL, operation: "open chip by name", chip: name, opening: true)
        }
        return try handle(board.openChip("open chip by name", displayName: name) { $0.name == name })
    }

    public func openChip(label: String) throws(GPIOError) -> any GPIOChipHandle {
        try handle(board.openChip("open chip by label", displayName: label) { $0.label == label })
    }

    private func handle(_ id: Int) throws(GPIOError) -> any GPIOChipHandle {
        SimulatedGPIOChipHandle(board: board, chipID: id, name: try board.info(chip: id).name)
    }

    // MARK: Control

    /// Adds a chip whose lines are named `lineNames` (empty strings for unnamed lines).
    ///
    /// - Parameter path: device path it answers to; `/dev/<name>` by default.
    @discardableResult
    public func addChip(name: String, label: String, lineNames: [String], path: String? = nil) -> GPIOChipInfo {
        let info = GPIOChipInfo(path: path ?? "/dev/\(name)", name: name, label: label, lineCount: lineNames.count)
        board.state.withLock { state in
            let lines = lineNames.map { SimulatedGPIOBoard.Line(name: $0) }
            state.chips.append(SimulatedGPIOBoard.Chip(id: state.makeID(), info: info, lines: lines))
        }
        return info
    }

    /// Adds a chip with lines `GPIO0`…`GPIO<n-1>`, like a Raspberry Pi header chip.
    @discardableResult
    public func addChip(name: String, label: String, lineCount: Int, path: String? = nil) -> GPIOChipInfo {
        addChip(name: name, label: label, lineNames: (0..<lineCount).map { "GPIO\($0)" }, path: path)
    }

    /// Makes a chip vanish: it leaves the listing, and every open handle and
    /// request on it fails with ``GPIOError/Kind/chipVanished``; event waiters wake up.
    public func removeChip(named name: String) throws(GPIOError) {
        try board.state.withLock { (state: inout SimulatedGPIOBoard.State) throws(GPIOError) in
            let index = try state.chipIndex(named: name, operation: "remove chip")
            state.chips[index].vanished = true
            let chipID = state.chips[index].id
            for request in state.requests.values where request.chipID == chipID {
                request.pipe.map(SimulatedGPIOBoard.State.signal)
            }
        }
    }

    /// Drives the pin at `offset` from outside to `level` (electrical), or lets it
    /// float to its bias with `nil`. Queues an edge event, stamped `at` (or now),
    /// when an input request's logical value changes.
    ///
    /// - Throws: ``GPIOError/Kind/invalidArgument`` if the line is a requested output.
    public func drive(chip: String, offset: UInt32, to level: Bool?, at time: Duration? = nil) throws(GPIOError) {
        let timestamp = time ?? board.now()
        try board.state.withLock { (state: inout SimulatedGPIOBoard.State) throws(GPIOError) in
            let index = try state.chipIndex(named: chip, operation: "drive line")
            try state.checkOffset(offset, chip: index, operation: "drive line")
            var line = state.chips[index].lines[Int(offset)]
            guard !line.isOutput else {
                throw GPIOError(errno: EINVAL, operation: "drive line", chip: chip, line: "\(offset)")
            }
            let before = line.logical
            line.external = level
            state.chips[index].lines[Int(offset)] = line
            if let requestID = line.requestID, line.logical != before {
                let event = GPIOEdgeEvent(offset: offset, edge: line.logical ? .rising : .falling, timestamp: timestamp)
                state.deliver(event, to: requestID)
            }
        }
    }

    /// Drives the first line called `name` on any live chip (see ``drive(chip:offset:to:at:)``).
    public func drive(line name: String, to level: Bool?, at time: Duration? = nil) throws(GPIOError) {
        let (chip, offset) = try locate(line: name)
        try drive(chip: chip, offset: offset, to: level, at: time)
    }

    /// The electrical level on the pin: what an output drives (active-low
    /// applied), or what an input sees from outside and its bias.
    public func level(chip: String, offset: UInt32) throws(GPIOError) -> Bool {
        try board.state.withLock { (state: inout SimulatedGPIOBoard.State) throws(GPIOError) -> Bool in
            let index = try state.chipIndex(named: chip, operation: "read level")
            try state.checkOffset(offset, chip: index, operation: "read level")
            return state.chips[index].lines[Int(offset)].physical
        }
    }

    /// The electrical level of the first line called `name` (see ``level(chip:offset:)``).
    public func level(line name: String) throws(GPIOError) -> Bool {
        let (chip, offset) = try locate(line: name)
        return try level(chip: chip, offset: offset)
    }

    /// Edges dropped because a request's queue held ``SimulatedGPIOBoard/queueLimit`` unread events.
    public var droppedEvents: Int {
        board.state.withLock { $0.droppedEvents }
    }

    private func locate(line name: String) throws(GPIOError) -> (chip: String, offset: UInt32) {
        try board.state.withLock { (state: inout SimulatedGPIOBoard.State) throws(GPIOError) -> (chip: String, offset: UInt32) in
            for chip in state.chips where !chip.vanished {
                if let offset = chip.lines.firstIndex(where: { $0.name == name }) {
                    return (chip.info.name, UInt32(offset))
                }
            }
            throw GPIOError(errno: ENOENT, operation: "locate line", line: name)
        }
    }
}
