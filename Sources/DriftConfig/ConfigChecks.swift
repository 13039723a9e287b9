import Foundation

/// Value checks shared by several sections. Each returns `nil` when the value is fine.
enum ConfigChecks {
    /// A GPIO line name as the kernel reports it (`GPIO17`, `presence`); `""` means not fitted.
    static func lineName(_ name: String) -> ValueProblem? {
        if name.isEmpty { return nil }
        if name.utf8.count > 31 {
            return ValueProblem("line names have at most 31 bytes, found \(name.utf8.count)")
        }
        if name.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            return ValueProblem("line names contain no spaces or control characters, found `\(name)`")
        }
        if let digits = Int(name) {
            return ValueProblem(
                "lines are named, not numbered (numbers differ between kernels), found `\(name)`",
                hint: "did you mean `GPIO\(digits)`?")
        }
        return nil
    }

    /// An absolute device path, or one of the keywords in `keywords` (such as `auto`).
    static func devicePath(_ path: String, keywords: [String]) -> ValueProblem? {
        if keywords.contains(path) { return nil }
        if path.hasPrefix("/"), !path.contains("\0"), path.count > 1 { return nil }
        let allowed = (keywords.map { "`\($0)`" } + ["an absolute path such as `/dev/ttyAMA0`"])
            .joined(separator: ", ")
        let hint = Suggestion.closest(to: path, among: keywords).map { "did you mean `\($0)`?" }
            ?? (path.hasPrefix("dev/") || path.hasPrefix("tty") ? "did you mean `/dev/\(path.hasPrefix("dev/") ? String(path.dropFirst(4)) : path)`?" : nil)
        return ValueProblem("must be \(allowed); found `\(path)`", hint: hint)
    }

    /// A non-empty path without NUL bytes (relative paths allowed).
    static func path(_ path: String) -> ValueProblem? {
        if path.isEmpty { return ValueProblem("must not be empty") }
        if path.contains("\0") { return ValueProblem("must not contain NUL bytes") }
        return nil
    }

    /// Printable text of `range` characters (box names).
    static func text(_ text: String, length range: ClosedRange<Int>) -> ValueProblem? {
        if !range.contains(text.count) {
            return ValueProblem("must have \(range.lowerBound) to \(range.upperBound) characters, found \(text.count)")
        }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return ValueProblem("must not contain control characters")
        }
        return nil
    }

    /// `""` or up to 64 letters, digits, `-` and `_`.
    static func identifier(_ id: String) -> ValueProblem? {
        if id.isEmpty { return nil }
        if id.count <= 64, id.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }) {
            return nil
        }
        return ValueProblem("must be empty (generated on first start) or 1–64 letters, digits, `-` and `_`; found `\(id)`")
    }

    /// An IANA time zone name that Foundation knows (`Europe/Berlin`, `UTC`).
    static func timeZone(_ identifier: String) -> ValueProblem? {
        let known = TimeZone.knownTimeZoneIdentifiers
        let accepted = TimeZone(identifier: identifier) != nil
            && (known.contains(identifier) || identifier.contains("/") || identifier == "UTC" || identifier == "GMT")
        if accepted { return nil }
        let caseMatch = known.first { $0.lowercased() == identifier.lowercased() }
        let hint = (caseMatch ?? Suggestion.closest(to: identifier, among: known)).map { "did you mean `\($0)`?" }
        return ValueProblem("`\(identifier)` is not an IANA time zone name (like `Europe/Berlin` or `UTC`)", hint: hint)
    }

    /// Base64 of exactly 32 bytes; returns the bytes or the problem.
    static func networkKey(_ text: String) -> Result<[UInt8], ValueProblem> {
        guard let data = Data(base64Encoded: text.trimmingCharacters(in: .whitespaces)) else {
            return .failure(ValueProblem(
                "must be base64 (of 32 random bytes)",
                hint: "make one with `head -c 32 /dev/urandom | base64`"))
        }
        guard data.count == 32 else {
            return .failure(ValueProblem(
                "must decode to exactly 32 bytes, found \(data.count)",
                hint: "make one with `head -c 32 /dev/urandom | base64`"))
        }
        return .success([UInt8](data))
    }

    /// Serial baud rates accepted for the radio UART.
    static let standardBaudRates = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 921_600]

    static func baud(_ rate: Int, allowAuto: Bool) -> ValueProblem? {
        if allowAuto, rate == 0 { return nil }
        if standardBaudRates.contains(rate) { return nil }
        let list = standardBaudRates.map(String.init).joined(separator: ", ")
        return ValueProblem("must be \(allowAuto ? "0 (auto-detect) or " : "")a standard rate (\(list)), found \(rate)")
    }
}
