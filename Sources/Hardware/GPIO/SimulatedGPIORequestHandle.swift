import DriftSystem

/// Requested simulated lines; see ``SimulatedGPIODriver``. Releases in `deinit`.
final class SimulatedGPIORequestHandle: GPIORequestHandle {
    let offsets: [UInt32]
    let eventDescriptor: FileDescriptor?
    private let board: SimulatedGPIOBoard
    private let requestID: Int

    init(board: SimulatedGPIOBoard, requestID: Int, offsets: [UInt32], eventDescriptor: FileDescriptor?) {
        self.board = board
        self.requestID = requestID
        self.offsets = offsets
        self.eventDescriptor = eventDescriptor
    }

    deinit { release() }

    func readEvents(maxCount: Int) throws(GPIOError) -> [GPIOEdgeEvent] {
        precondition(maxCount > 0, "readEvents needs room for at least one event")
        return try board.readEvents(request: requestID, maxCount: maxCount)
    }

    func getValues() throws(GPIOError) -> [Bool] {
        try board.getValues(request: requestID)
    }

    func setValues(_ values: [Bool]) throws(GPIOError) {
        try board.setValues(request: requestID, values)
    }

    func release() {
        board.release(request: requestID)
    }
}
