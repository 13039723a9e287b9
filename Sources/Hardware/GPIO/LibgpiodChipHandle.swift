import CDriftSys
import CGPIOD
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open `dgpio_chip`. Calls are serialised; ``close()`` is idempotent and happens in `deinit`.
final class LibgpiodChipHandle: GPIOChipHandle {
    private let pointer: Mutex<ShimHandle?>
    /// How the caller named the chip, for errors.
    private let displayName: String

    init(_ pointer: OpaquePointer, displayName: String) {
        self.pointer = Mutex(ShimHandle(raw: pointer))
        self.displayName = displayName
    }

    deinit { close() }

    func info() throws(GPIOError) -> GPIOChipInfo {
        try withChip("chip info") { chip throws(GPIOError) in
            var info = dgpio_chip_info()
            try Libgpiod.call("chip info", chip: displayName) { dgpio_chip_get_info(chip, &info) }
            return GPIOChipInfo(info)
        }
    }

    func findLine(named name: String) throws(GPIOError) -> UInt32 {
        try withChip("find line", line: name) { chip throws(GPIOError) in
            UInt32(try Libgpiod.call("find line", chip: displayName, line: name) { dgpio_chip_find_line(chip, name) })
        }
    }

    func lineInfo(offset: UInt32) throws(GPIOError) -> GPIOLineInfo {
        try withChip("line info", line: "\(offset)") { chip throws(GPIOError) in
            var info = dgpio_line_info()
            let result = dgpio_chip_line_info(chip, offset, &info)
            if result == -EINVAL {
                throw GPIOError(.lineNotFound, operation: "line info", chip: displayName, line: "\(offset)")
            }
            try Libgpiod.call("line info", chip: displayName, line: "\(offset)") { result }
            return GPIOLineInfo(info)
        }
    }

    func requestInput(offsets: [UInt32], consumer: String, bias: GPIOBias, activeLow: Bool) throws(GPIOError) -> any GPIORequestHandle {
        let lines = GPIOChip.describe(offsets)
        return try withChip("request input", line: lines) { chip throws(GPIOError) in
            var request: OpaquePointer?
            try Libgpiod.call("request input", chip: displayName, line: lines) {
                offsets.withUnsafeBufferPointer { buffer in
                    dgpio_request_input(chip, consumer, buffer.baseAddress, UInt32(buffer.count),
                                        bias.rawValue, activeLow ? 1 : 0, &request)
                }
            }
            return try LibgpiodRequestHandle(request!, offsets: offsets, chip: displayName, isInput: true)
        }
    }

    func requestOutput(offsets: [UInt32], consumer: String, activeLow: Bool, values: [Bool]) throws(GPIOError) -> any GPIORequestHandle {
        let lines = GPIOChip.describe(offsets)
        let levels = values.map { Int32($0 ? 1 : 0) }
        return try withChip("request output", line: lines) { chip throws(GPIOError) in
            var request: OpaquePointer?
            try Libgpiod.call("request output", chip: displayName, line: lines) {
                offsets.withUnsafeBufferPointer { buffer in
                    levels.withUnsafeBufferPointer { initial in
                        dgpio_request_output(chip, consumer, buffer.baseAddress, UInt32(buffer.count),
                                             activeLow ? 1 : 0, initial.baseAddress, &request)
                    }
                }
            }
            return try LibgpiodRequestHandle(request!, offsets: offsets, chip: displayName, isInput: false)
        }
    }

    func close() {
        pointer.withLock { pointer in
            dgpio_chip_close(pointer?.raw)
            pointer = nil
        }
    }

    /// Runs `body` with the open chip, or throws ``GPIOError/Kind/released`` once closed.
    private func withChip<Result: Sendable>(
        _ operation: String,
        line: String? = nil,
        _ body: (OpaquePointer) throws(GPIOError) -> Result
    ) throws(GPIOError) -> Result {
        try pointer.withLock { (pointer: inout ShimHandle?) throws(GPIOError) -> Result in
            guard let chip = pointer?.raw else {
                throw GPIOError(.released, operation: operation, chip: displayName, line: line)
            }
            return try body(chip)
        }
    }
}
