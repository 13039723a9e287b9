import CDriftSys
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An open GPIO chip: line lookup and line requests, over any ``GPIODriver``.
///
/// Open chips by label or find lines by name; never hard-code a chip number.
/// Requests made from a chip keep working after the chip is closed.
/// ``close()`` is idempotent and also happens in `deinit`.
///
/// ```swift
/// let chip = try GPIOChip.open("label:pinctrl-rp1")
/// let button = try chip.requestInput(named: ["GPIO17"], bias: .pullUp, activeLow: true)
/// for try await event in button.events() { … }
/// ```
public final class GPIOChip: Sendable {
    /// The chip as the kernel describes it (read when opened).
    public let info: GPIOChipInfo
    /// The driver this chip was opened with.
    public let driver: any GPIODriver
    private let handle: any GPIOChipHandle

    init(handle: any GPIOChipHandle, driver: any GPIODriver) throws(GPIOError) {
        self.handle = handle
        self.driver = driver
        do {
            self.info = try handle.info()
        } catch {
            handle.close()
            throw error
        }
    }

    deinit { handle.close() }

    // MARK: Opening and finding chips

    /// Opens a chip named as a board profile would: `"label:pinctrl-rp1"`,
    /// `"name:gpiochip0"`, `"path:/dev/gpiochip0"`, or a plain string tried as
    /// a path (if it contains `/`), then a name, then a label.
    public static func open(_ selector: String, driver: any GPIODriver = LibgpiodDriver()) throws(GPIOError) -> GPIOChip {
        try open(GPIOChipSelector(parsing: selector), driver: driver)
    }

    /// Opens the chip `selector` names. For ``GPIOChipSelector/any(_:)`` the
    /// next candidate is tried only when the previous one was not found.
    public static func open(_ selector: GPIOChipSelector, driver: any GPIODriver = LibgpiodDriver()) throws(GPIOError) -> GPIOChip {
        var lastError: GPIOError?
        for candidate in selector.candidates {
            do {
                return try GPIOChip(handle: openHandle(candidate, driver: driver), driver: driver)
            } catch {
                lastError = error
                if error.kind != .chipNotFound { break }
            }
        }
        var error = lastError ?? GPIOError(errno: ENOENT, operation: "open chip", opening: true)
        error.chip = selector.description
        throw error
    }

    /// All chips the driver sees, for `selftest` and diagnostics.
    public static func chips(driver: any GPIODriver = LibgpiodDriver()) throws(GPIOError) -> [GPIOChipInfo] {
        try driver.listChips()
    }

    /// Finds the first chip (in driver order) with a line called `name`, e.g. `"GPIO17"`.
    ///
    /// - Returns: the opened chip and the line's offset on it.
    /// - Throws: ``GPIOError/Kind/lineNotFound`` when no chip has such a line.
    public static func locateLine(named name: String, driver: any GPIODriver = LibgpiodDriver()) throws(GPIOError) -> (chip: GPIOChip, offset: UInt32) {
        for info in try driver.listChips() {
            let chip = try GPIOChip.open(.path(info.path), driver: driver)
            do {
                return (chip, try chip.lineOffset(named: name))
            } catch where error.kind == .lineNotFound {
                continue
            }
        }
        throw GPIOError(errno: ENOENT, operation: "locate line", line: name)
    }

    private static func openHandle(_ selector: GPIOChipSelector, driver: any GPIODriver) throws(GPIOError) -> any GPIOChipHandle {
        switch selector {
        case .path(let path): try driver.openChip(path: path)
        case .name(let name): try driver.openChip(name: name)
        case .label(let label), .any(let label): try driver.openChip(label: label)
        }
    }

    // MARK: Lines

    /// Offset of the first line called `name` on this chip.
    public func lineOffset(named name: String) throws(GPIOError) -> UInt32 {
        try handle.findLine(named: name)
    }

    /// The line called `name` on this chip.
    public func line(named name: String) throws(GPIOError) -> GPIOLineInfo {
        try handle.lineInfo(offset: handle.findLine(named: name))
    }

    /// The line at `offset`; ``GPIOError/Kind/lineNotFound`` when out of range.
    public func lineInfo(offset: UInt32) throws(GPIOError) -> GPIOLineInfo {
        guard Int(offset) < info.lineCount else {
            throw GPIOError(.lineNotFound, operation: "line info", chip: info.name, line: "\(offset)")
        }
        return try handle.lineInfo(offset: offset)
    }

    /// Every line of the chip, for `selftest`.
    public func lines() throws(GPIOError) -> [GPIOLineInfo] {
        var result: [GPIOLineInfo] = []
        for offset in 0..<UInt32(info.lineCount) {
            result.append(try handle.lineInfo(offset: offset))
        }
        return result
    }

    // MARK: Requests

    /// Requests lines as inputs with both-edge events.
    ///
    /// - Parameters:
    ///   - offsets: 1 to 64 distinct offsets on this chip.
    ///   - consumer: shown by `gpioinfo` as the line's user.
    ///   - bias: pull resistor; `.pullUp` with `activeLow` for a button to ground.
    ///   - activeLow: invert values and edges (pressed = active).
    public func requestInput(
        offsets: [UInt32],
        consumer: String = "driftd",
        bias: GPIOBias = .asIs,
        activeLow: Bool = false
    ) throws(GPIOError) -> GPIOInputRequest {
        try validate(offsets, operation: "request input")
        let request = try handle.requestInput(offsets: offsets, consumer: consumer, bias: bias, activeLow: activeLow)
        return try GPIOInputRequest(handle: request, chip: info.name)
    }

    /// Requests the lines called `names` as inputs (see ``requestInput(offsets:consumer:bias:activeLow:)``).
    public func requestInput(
        named names: [String],
        consumer: String = "driftd",
        bias: GPIOBias = .asIs,
        activeLow: Bool = false
    ) throws(GPIOError) -> GPIOInputRequest {
        try requestInput(offsets: offsets(named: names), consumer: consumer, bias: bias, activeLow: activeLow)
    }

    /// Requests lines as outputs, driven to `initial` (logical; all inactive when `nil`).
    public func requestOutput(
        offsets: [UInt32],
        initial: [Bool]? = nil,
        consumer: String = "driftd",
        activeLow: Bool = false
    ) throws(GPIOError) -> GPIOOutputRequest {
        try validate(offsets, operation: "request output")
        let values = initial ?? Array(repeating: false, count: offsets.count)
        guard values.count == offsets.count else {
            throw GPIOError(errno: EINVAL, operation: "request output", chip: info.name, line: Self.describe(offsets))
        }
        let request = try handle.requestOutput(offsets: offsets, consumer: consumer, activeLow: activeLow, values: values)
        return GPIOOutputRequest(handle: request, chip: info.name)
    }

    /// Requests the lines called `names` as outputs (see ``requestOutput(offsets:initial:consumer:activeLow:)``).
    public func requestOutput(
        named names: [String],
        initial: [Bool]? = nil,
        consumer: String = "driftd",
        activeLow: Bool = false
    ) throws(GPIOError) -> GPIOOutputRequest {
        try requestOutput(offsets: offsets(named: names), initial: initial, consumer: consumer, activeLow: activeLow)
    }

    /// Closes the chip handle; requests made from it stay valid. Idempotent.
    public func close() {
        handle.close()
    }

    private func offsets(named names: [String]) throws(GPIOError) -> [UInt32] {
        var offsets: [UInt32] = []
        for name in names {
            offsets.append(try handle.findLine(named: name))
        }
        return offsets
    }

    /// 1...64 distinct, in-range offsets; the shim and kernel would reject the rest less clearly.
    private func validate(_ offsets: [UInt32], operation: String) throws(GPIOError) {
        let valid = !offsets.isEmpty && offsets.count <= Self.maxLinesPerRequest
            && Set(offsets).count == offsets.count
        guard valid else {
            throw GPIOError(errno: EINVAL, operation: operation, chip: info.name, line: Self.describe(offsets))
        }
        if let bad = offsets.first(where: { Int($0) >= info.lineCount }) {
            throw GPIOError(.lineNotFound, operation: operation, chip: info.name, line: "\(bad)")
        }
    }

    /// Most lines in one request (`DGPIO_MAX_LINES`).
    public static let maxLinesPerRequest = 64

    /// `"17"` or `"17,22,27"`, for error messages.
    static func describe(_ offsets: [UInt32]) -> String {
        offsets.map(String.init).joined(separator: ",")
    }
}
