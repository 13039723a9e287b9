/// UTC time of day as NMEA gives it (`hhmmss.sss`), in milliseconds since midnight.
public struct NMEATimeOfDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since 00:00:00 UTC, 0 ..< 86_401_000 (a leap second is allowed).
    public let milliseconds: Int

    public init(milliseconds: Int) { self.milliseconds = milliseconds }

    /// Parses `hhmmss` with optional fraction; `nil` when malformed or out of range.
    public init?(_ field: Substring) {
        let bytes = Array(field.utf8)
        guard bytes.count >= 6, let hh = NMEAFieldParser.digits(bytes[0..<2]),
              let mm = NMEAFieldParser.digits(bytes[2..<4]), let ss = NMEAFieldParser.digits(bytes[4..<6]),
              hh < 24, mm < 60, ss <= 60 else { return nil }
        var millis = 0
        if bytes.count > 6 {
            guard bytes[6] == UInt8(ascii: ".") else { return nil }
            // Round the fraction to milliseconds.
            var scale = 100_000_000
            var nanos = 0
            for byte in bytes[7...] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                nanos += Int(byte - 0x30) * scale
                scale /= 10
            }
            millis = (nanos + 500_000) / 1_000_000
        }
        self.milliseconds = ((hh * 60 + mm) * 60 + ss) * 1000 + millis
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// `HH:MM:SS.sss`.
    public var description: String {
        let ms = milliseconds % 1000
        let total = milliseconds / 1000
        return "\(NMEAFieldParser.pad(total / 3600)):\(NMEAFieldParser.pad(total / 60 % 60)):\(NMEAFieldParser.pad(total % 60)).\(NMEAFieldParser.pad(ms, width: 3))"
    }
}

/// A calendar date as the receiver gives it (no week-rollover correction).
public struct NMEADate: Sendable, Hashable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), (1...31).contains(day), (1970...2200).contains(year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses RMC's `ddmmyy`; two-digit years are 1980…2079 (the GPS era).
    public init?(ddmmyy field: Substring) {
        let bytes = Array(field.utf8)
        guard bytes.count == 6, let dd = NMEAFieldParser.digits(bytes[0..<2]),
              let mm = NMEAFieldParser.digits(bytes[2..<4]), let yy = NMEAFieldParser.digits(bytes[4..<6])
        else { return nil }
        self.init(year: yy < 80 ? 2000 + yy : 1900 + yy, month: mm, day: dd)
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        "\(NMEAFieldParser.pad(year, width: 4))-\(NMEAFieldParser.pad(month))-\(NMEAFieldParser.pad(day))"
    }
}

/// Field-level parsing shared by the sentence parsers. A field that does not parse is absent (`nil`).
enum NMEAFieldParser {
    static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    static func pad(_ value: Int, width: Int = 2) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// A decimal number (`-12.5`, `+107`, `.5`); `nil` when empty or malformed.
    static func double(_ field: Substring) -> Double? {
        guard !field.isEmpty, field.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x2D || $0 == 0x2B }) else { return nil }
        guard let value = Double(field), value.isFinite else { return nil }
        return value
    }

    /// A non-negative integer; `nil` when empty or malformed.
    static func int(_ field: Substring) -> Int? {
        guard !field.isEmpty, field.utf8.count <= 9 else { return nil }
        return digits(ArraySlice(field.utf8))
    }

    /// The first character of a single-letter field (status, hemisphere, mode).
    static func character(_ field: Substring) -> Character? { field.first }

    /// Latitude or longitude from `dddmm.mmmm` plus hemisphere `N`/`S`/`E`/`W`, in degrees.
    static func coordinate(_ value: Substring, _ hemisphere: Substring, limit: Double) -> Double? {
        guard let raw = double(value), raw >= 0, let side = hemisphere.first else { return nil }
        let degrees = (raw / 100).rounded(.towardZero)
        let minutes = raw - degrees * 100
        guard minutes < 60 else { return nil }
        let result = degrees + minutes / 60
        guard result <= limit else { return nil }
        switch side {
        case "N", "E": return result
        case "S", "W": return -result
        default: return nil
        }
    }
}
