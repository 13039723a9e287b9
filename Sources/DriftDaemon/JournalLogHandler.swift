import Foundation
import Logging
import Synchronization

/// A swift-log handler that writes one line per message to standard error in a
/// form journald understands.
///
/// Under systemd (`JOURNAL_STREAM` set) each line starts with the syslog
/// priority in angle brackets (`<6>`), which journald strips and stores as the
/// entry's priority; otherwise lines carry a UTC timestamp and the level name
/// for a person reading a terminal. Metadata follows as `key=value` pairs.
public struct JournalLogHandler: LogHandler {
    /// How lines are written.
    public enum Style: Sendable {
        /// `<N>label: message key=value` (journald).
        case journal
        /// `2026-11-22T15:04:05.123Z info label: message key=value` (terminal).
        case text
    }

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    public let label: String
    public let style: Style
    private let sink: Sink

    /// A handler writing to standard error, choosing the style from the environment.
    public init(label: String, level: Logger.Level = .info, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(label: label, level: level, style: environment["JOURNAL_STREAM"] == nil ? .text : .journal, sink: .standardError)
    }

    /// A handler writing to `sink` in `style` (tests capture lines this way).
    public init(label: String, level: Logger.Level = .info, style: Style, sink: Sink) {
        self.label = label
        self.logLevel = level
        self.style = style
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata {
            merged.merge(extra) { _, new in new }
        }
        let line = Self.format(
            level: event.level, label: label, message: event.message.description,
            metadata: merged, style: style, date: Date()
        )
        sink.write(line)
    }

    /// The syslog priority journald uses for `level` (0 emerg … 7 debug).
    public static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// Formats one line (without the trailing newline).
    public static func format(
        level: Logger.Level, label: String, message: String,
        metadata: Logger.Metadata, style: Style, date: Date
    ) -> String {
        // One entry is one line: journald splits on newlines.
        var text = message.replacingOccurrences(of: "\n", with: " ⏎ ")
        if !metadata.isEmpty {
            let pairs = metadata.sorted { $0.key < $1.key }.map { key, value in
                let rendered = "\(value)"
                let needsQuotes = rendered.isEmpty || rendered.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" })
                let shown = needsQuotes ? "\"" + rendered.replacingOccurrences(of: "\"", with: "\\\"") + "\"" : rendered
                return "\(key)=\(shown)".replacingOccurrences(of: "\n", with: " ")
            }
            text += " " + pairs.joined(separator: " ")
        }
        switch style {
        case .journal:
            return "<\(priority(of: level))>\(label): \(text)"
        case .text:
            return "\(date.formatted(timestampStyle)) \(level.rawValue) \(label): \(text)"
        }
    }

    /// A value type, safe to use from every thread that logs (unlike `ISO8601DateFormatter`).
    private static let timestampStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}

extension JournalLogHandler {
    /// Where formatted lines go.
    public final class Sink: Sendable {
        private let writeLine: @Sendable (String) -> Void

        public init(_ writeLine: @escaping @Sendable (String) -> Void) {
            self.writeLine = writeLine
        }

        func write(_ line: String) { writeLine(line) }

        /// Standard error, one `write(2)` per line so lines from several threads never interleave.
        public static let standardError = Sink { line in
            let bytes = Array((line + "\n").utf8)
            bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = Foundation.write(2, raw.baseAddress! + offset, raw.count - offset)
                    if written <= 0 { return }
                    offset += written
                }
            }
        }

        /// Collects lines in memory (for tests).
        public static func collecting() -> (Sink, @Sendable () -> [String]) {
            let lines = Mutex<[String]>([])
            let sink = Sink { line in lines.withLock { $0.append(line) } }
            return (sink, { lines.withLock { $0 } })
        }
    }
}
