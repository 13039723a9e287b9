/// gpsd's `?WATCH` command that starts the JSON report stream.
enum GPSDWatch {
    static let command = "?WATCH={\"enable\":true,\"json\":true};\n"
}

/// Splits gpsd's byte stream into lines (LF or CR/LF), never buffering more than
/// ``maximumLineLength`` bytes: a longer line is dropped and counted.
struct GPSDLineReader {
    static let maximumLineLength = 65_536
    private var pending: [UInt8] = []
    private var discarding = false
    /// Lines dropped for being too long.
    private(set) var dropped = 0

    mutating func push(_ bytes: some Sequence<UInt8>) -> [String] {
        var lines: [String] = []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if !discarding {
                    if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                    if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
                }
                pending.removeAll(keepingCapacity: true)
                discarding = false
            } else if !discarding {
                pending.append(byte)
                if pending.count > Self.maximumLineLength {
                    pending.removeAll()
                    discarding = true
                    dropped += 1
                }
            }
        }
        return lines
    }
}
