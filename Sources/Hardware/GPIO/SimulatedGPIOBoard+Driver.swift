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

/// What the simulated chip and request handles call: the shim's functions over ``SimulatedGPIOBoard/State``.
extension SimulatedGPIOBoard {
    func listChips() -> [GPIOChipInfo] {
        state.withLock { state in state.chips.filter { !$0.vanished }.map(\.info) }
    }

    /// Id of the first live chip matching, or `ENOENT`.
    func openChip(_ operation: String, displayName: String, where matches: (GPIOChipInfo) -> Bool) throws(GPIOError) -> Int {
        try state.withLock { (state: inout State) throws(GPIOError) -> Int in
            guard let chip = state.chips.first(where: { !$0.vanished && matches($0.info) }) else {
                throw GPIOError(errno: ENOENT, operation: operation, chip: displayName, opening: true)
            }
            return chip.id
        }
    }

    func info(chip id: Int) throws(GPIOError) -> GPIOChipInfo {
        try state.withLock { (state: inout State) throws(GPIOError) -> GPIOChipInfo in
            state.chips[try state.chipIndex(id, operation: "chip info")].info
        }
    }

    func findLine(chip id: Int, named name: String) throws(GPIOError) -> UInt32 {
        try state.withLock { (state: inout State) throws(GPIOError) -> UInt32 in
            let index = try state.chipIndex(id, operation: "find line", line: name)
            guard let offset = state.chips[index].lines.firstIndex(where: { $0.name == name }) else {
                throw GPIOError(errno: ENOENT, operation: "find line", chip: state.chips[index].info.name, line: name)
            }
            return UInt32(offset)
        }
    }

    func lineInfo(chip id: Int, offset: UInt32) throws(GPIOError) -> GPIOLineInfo {
        try state.withLock { (state: inout State) throws(GPIOError) -> GPIOLineInfo in
            let index = try state.chipIndex(id, operation: "line info", line: "\(offset)")
            try state.checkOffset(offset, chip: index, operation: "line info")
            let line = state.chips[index].lines[Int(offset)]
            return GPIOLineInfo(offset: offset, name: line.name, consumer: line.consumer,
                                isUsed: line.requestID != nil, isOutput: line.isOutput, isActiveLow: line.activeLow)
        }
    }

    /// Requests lines as the kernel would: all or nothing, `EBUSY` if any is taken.
    func request(
        chip id: Int, offsets: [UInt32], consumer: String, isInput: Bool,
        bias: GPIOBias, activeLow: Bool, values: [Bool]
    ) throws(GPIOError) -> (id: Int, events: FileDescriptor?) {
        let operation = isInput ? "request input" : "request output"
        let pipe = isInput ? try Self.makePipe(operation: operation) : nil
        do {
            return try state.withLock { (state: inout State) throws(GPIOError) -> (id: Int, events: FileDescriptor?) in
                let index = try state.chipIndex(id, operation: operation, line: GPIOChip.describe(offsets))
                guard !offsets.isEmpty, Set(offsets).count == offsets.count, values.count == (isInput ? 0 : offsets.count) else {
                    throw GPIOError(errno: EINVAL, operation: operation, chip: state.chips[index].info.name, line: GPIOChip.describe(offsets))
                }
                for offset in offsets {
                    try state.checkOffset(offset, chip: index, operation: operation)
                    if state.chips[index].lines[Int(offset)].requestID != nil {
                        throw GPIOError(errno: EBUSY, operation: operation, chip: state.chips[index].info.name, line: "\(offset)")
                    }
                }
                let requestID = state.makeID()
                for (position, offset) in offsets.enumerated() {
                    var line = state.chips[index].lines[Int(offset)]
                    line.requestID = requestID
                    line.consumer = consumer
                    line.activeLow = activeLow
                    line.isOutput = !isInput
                    if isInput { line.bias = bias } else { line.outputValue = values[position] }
                    state.chips[index].lines[Int(offset)] = line
                }
                state.requests[requestID] = Request(id: requestID, chipID: id, offsets: offsets, isInput: isInput, pipe: pipe)
                return (requestID, pipe?.read)
            }
        } catch {
            if let pipe { Self.close(pipe) }
            throw error
        }
    }

    func readEvents(request id: Int, maxCount: Int) throws(GPIOError) -> [GPIOEdgeEvent] {
        try state.withLock { (state: inout State) throws(GPIOError) -> [GPIOEdgeEvent] in
            if let pipe = state.requests[id]?.pipe { State.drain(pipe) }
            var (request, _) = try state.request(id, operation: "read events")
            guard let pipe = request.pipe else {
                throw GPIOError(errno: EINVAL, operation: "read events", line: GPIOChip.describe(request.offsets))
            }
            let taken = Array(request.queue.prefix(maxCount))
            request.queue.removeFirst(taken.count)
            if !request.queue.isEmpty { State.signal(pipe) }
            state.requests[id] = request
            return taken
        }
    }

    func getValues(request id: Int) throws(GPIOError) -> [Bool] {
        try state.withLock { (state: inout State) throws(GPIOError) -> [Bool] in
            let (request, chip) = try state.request(id, operation: "get values")
            return request.offsets.map { state.chips[chip].lines[Int($0)].logical }
        }
    }

    func setValues(request id: Int, _ values: [Bool]) throws(GPIOError) {
        try state.withLock { (state: inout State) throws(GPIOError) in
            let (request, chip) = try state.request(id, operation: "set values")
            guard !request.isInput else {
                throw GPIOError(errno: EPERM, operation: "set values", chip: state.chips[chip].info.name, line: GPIOChip.describe(request.offsets))
            }
            guard values.count == request.offsets.count else {
                throw GPIOError(errno: EINVAL, operation: "set values", chip: state.chips[chip].info.name, line: GPIOChip.describe(request.offsets))
            }
            for (offset, value) in zip(request.offsets, values) {
                state.chips[chip].lines[Int(offset)].outputValue = value
            }
        }
    }

    /// Frees the lines and closes the request's pipe. Idempotent.
    func release(request id: Int) {
        let pipe = state.withLock { state -> (read: FileDescriptor, write: FileDescriptor)? in
            guard let request = state.requests.removeValue(forKey: id) else { return nil }
            if let index = state.chips.firstIndex(where: { $0.id == request.chipID }) {
                for offset in request.offsets {
                    var line = state.chips[index].lines[Int(offset)]
                    line.requestID = nil
                    line.consumer = ""
                    line.isOutput = false
                    state.chips[index].lines[Int(offset)] = line
                }
            }
            return request.pipe
        }
        if let pipe { Self.close(pipe) }
    }

    private static func makePipe(operation: String) throws(GPIOError) -> (read: FileDescriptor, write: FileDescriptor) {
        do throws(SystemError) {
            let pipe = try FileDescriptor.pipe()
            do throws(SystemError) {
                try pipe.read.setNonBlocking()
                try pipe.write.setNonBlocking()
            } catch {
                close(pipe)
                throw error
            }
            return pipe
        } catch {
            throw GPIOError(.system, operation: operation, systemError: error)
        }
    }

    private static func close(_ pipe: (read: FileDescriptor, write: FileDescriptor)) {
        try? pipe.read.close()
        try? pipe.write.close()
    }
}
