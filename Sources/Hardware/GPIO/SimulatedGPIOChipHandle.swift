import Synchronization

/// An open simulated chip; see ``SimulatedGPIODriver``.
final class SimulatedGPIOChipHandle: GPIOChipHandle {
    private let board: SimulatedGPIOBoard
    private let chipID: Int
    private let name: String
    private let closed = Mutex(false)

    init(board: SimulatedGPIOBoard, chipID: Int, name: String) {
        self.board = board
        self.chipID = chipID
        self.name = name
    }

    func info() throws(GPIOError) -> GPIOChipInfo {
        try checkOpen("chip info")
        return try board.info(chip: chipID)
    }

    func findLine(named name: String) throws(GPIOError) -> UInt32 {
        try checkOpen("find line")
        return try board.findLine(chip: chipID, named: name)
    }

    func lineInfo(offset: UInt32) throws(GPIOError) -> GPIOLineInfo {
        try checkOpen("line info")
        return try board.lineInfo(chip: chipID, offset: offset)
    }

    func requestInput(offsets: [UInt32], consumer: String, bias: GPIOBias, activeLow: Bool) throws(GPIOError) -> any GPIORequestHandle {
        try checkOpen("request input")
        let (id, events) = try board.request(chip: chipID, offsets: offsets, consumer: consumer, isInput: true,
                                             bias: bias, activeLow: activeLow, values: [])
        return SimulatedGPIORequestHandle(board: board, requestID: id, offsets: offsets, eventDescriptor: events)
    }

    func requestOutput(offsets: [UInt32], consumer: String, activeLow: Bool, values: [Bool]) throws(GPIOError) -> any GPIORequestHandle {
        try checkOpen("request output")
        let (id, _) = try board.request(chip: chipID, offsets: offsets, consumer: consumer, isInput: false,
                                        bias: .asIs, activeLow: activeLow, values: values)
        return SimulatedGPIORequestHandle(board: board, requestID: id, offsets: offsets, eventDescriptor: nil)
    }

    func close() {
        closed.withLock { $0 = true }
    }

    private func checkOpen(_ operation: String) throws(GPIOError) {
        if closed.withLock({ $0 }) {
            throw GPIOError(.released, operation: operation, chip: name)
        }
    }
}
