/// Splits the byte stream from a Meshtastic node into protobuf frames and debug-log lines.
///
/// Feed it whatever the port delivers (``push(_:)``); it returns complete frames and
/// complete log lines in arrival order and keeps partial ones for the next call. A
/// header announcing more than 512 bytes is not a frame: its first byte is dropped
/// (counted in ``badLengths``) and the search for the next `0x94 0xC3` resumes right
/// after it, so one corrupt header costs at most that header. Memory stays bounded:
/// a pending frame is at most 516 bytes, a log line at most ``maximumLogLineBytes``.
public struct MeshtasticFrameDecoder: Sendable {
    public enum Event: Sendable, Equatable {
        /// A frame's protobuf bytes.
        case frame([UInt8])
        /// One line of the node's debug output (without its line ending).
        case logLine(String)
    }

    /// A longer log line is cut and reported in pieces.
    public static let maximumLogLineBytes = 1_024

    private var pending: [UInt8] = []
    private var logLine: [UInt8] = []
    public private(set) var frames = 0
    public private(set) var logLines = 0
    /// Headers whose length exceeded 512 bytes.
    public private(set) var badLengths = 0

    public init() {}

    public mutating func push(_ bytes: [UInt8]) -> [Event] {
        pending += bytes
        var events: [Event] = []
        var index = 0
        while index < pending.count {
            let byte = pending[index]
            guard byte == MeshtasticFraming.start1 else {
                appendLog(byte, into: &events)
                index += 1
                continue
            }
            // A possible header: need the second start byte and the length.
            guard index + 1 < pending.count else { break }
            guard pending[index + 1] == MeshtasticFraming.start2 else {
                appendLog(byte, into: &events)
                index += 1
                continue
            }
            guard index + 3 < pending.count else { break }
            let length = Int(pending[index + 2]) << 8 | Int(pending[index + 3])
            guard length <= MeshtasticFraming.maximumPayloadBytes else {
                badLengths += 1
                index += 1
                continue
            }
            guard index + 4 + length <= pending.count else { break }
            events.append(.frame(Array(pending[(index + 4)..<(index + 4 + length)])))
            frames += 1
            index += 4 + length
        }
        pending.removeFirst(index)
        return events
    }

    private mutating func appendLog(_ byte: UInt8, into events: inout [Event]) {
        if byte == UInt8(ascii: "\n") {
            flushLog(into: &events)
            return
        }
        logLine.append(byte)
        if logLine.count >= Self.maximumLogLineBytes { flushLog(into: &events) }
    }

    /// Emits the collected log text as one line (a frame in the middle of a line does
    /// not end it: the line goes on after the frame).
    private mutating func flushLog(into events: inout [Event]) {
        var text = String(decoding: logLine, as: UTF8.self)
        logLine.removeAll(keepingCapacity: true)
        while text.hasSuffix("\r") { text.removeLast() }
        guard !text.isEmpty else { return }
        logLines += 1
        events.append(.logLine(text))
    }
}
