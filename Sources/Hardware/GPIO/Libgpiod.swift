import CDriftSys
import CGPIOD

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Helpers for calling the CGPIOD shim, whose functions return `-errno` on failure.
enum Libgpiod {
    /// Runs `body` until it does not fail with `EINTR`; negative results become ``GPIOError``.
    ///
    /// - Returns: the non-negative result (a count, an offset or 0).
    @discardableResult
    static func call(
        _ operation: String,
        chip: String? = nil,
        line: String? = nil,
        opening: Bool = false,
        _ body: () -> Int32
    ) throws(GPIOError) -> Int {
        while true {
            let result = body()
            if result >= 0 { return Int(result) }
            if result == -EINTR { continue }
            throw GPIOError(errno: -result, operation: operation, chip: chip, line: line, opening: opening)
        }
    }

    /// A NUL-terminated C `char[N]` field (imported as a tuple) as a String.
    static func string<Field>(_ field: Field) -> String {
        withUnsafeBytes(of: field) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

extension GPIOChipInfo {
    init(_ info: dgpio_chip_info) {
        self.init(
            path: Libgpiod.string(info.path),
            name: Libgpiod.string(info.name),
            label: Libgpiod.string(info.label),
            lineCount: Int(info.num_lines)
        )
    }
}

extension GPIOLineInfo {
    init(_ info: dgpio_line_info) {
        self.init(
            offset: info.offset,
            name: Libgpiod.string(info.name),
            consumer: Libgpiod.string(info.consumer),
            isUsed: info.used != 0,
            isOutput: info.output != 0,
            isActiveLow: info.active_low != 0
        )
    }
}

extension GPIOEdgeEvent {
    init(_ event: dgpio_event) {
        self.init(
            offset: event.offset,
            edge: event.edge == Int32(DGPIO_EDGE_RISING.rawValue) ? .rising : .falling,
            timestamp: .nanoseconds(Int64(clamping: event.timestamp_ns))
        )
    }
}

/// A shim handle (`dgpio_chip *` or `dgpio_request *`).
///
/// `@unchecked Sendable`: the owning handle class keeps it inside a `Mutex`
/// and only dereferences it while holding the lock.
struct ShimHandle: @unchecked Sendable {
    let raw: OpaquePointer
}
