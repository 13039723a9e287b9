/// Unquoted values: booleans, integers, floats, dates and times.
extension TOMLParser {
    /// Parses the unquoted value at the index.
    mutating func parseScalar() throws(TOMLSyntaxError) -> TOMLNode {
        let start = index
        while let byte = peek(), Self.isScalarByte(byte) { index += 1 }
        // "1979-05-27 07:32:00": a date, one space, then a time.
        if index - start == 10, Self.isDatePattern(bytes[start..<index]), peek() == UInt8(ascii: " "),
            let first = peek(at: 1), Self.isDigit(first), let second = peek(at: 2), Self.isDigit(second),
            peek(at: 3) == UInt8(ascii: ":")
        {
            index += 1
            while let byte = peek(), Self.isScalarByte(byte) { index += 1 }
        }
        guard index > start else {
            throw error(at: start, "expected a value, found \(describe(at: start))")
        }
        let token = Array(bytes[start..<index])
        let text = String(decoding: token, as: UTF8.self)
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        default: break
        }
        if Self.looksLikeDateOrTime(token) {
            guard Self.isDateTime(token) else {
                throw error(at: start, "invalid date or time `\(text)` (expected e.g. 1979-05-27, 07:32:00 or 1979-05-27T07:32:00Z)")
            }
            return .dateTime(text)
        }
        if let number = try parseNumber(token, text: text, at: start) {
            return number
        }
        throw error(at: start, "invalid value `\(text)` (strings need quotes)")
    }

    /// Characters an unquoted value can contain.
    static func isScalarByte(_ byte: UInt8) -> Bool {
        isBareKeyByte(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    // MARK: - Numbers

    /// An integer or float, nil when `token` does not look like a number at all.
    private func parseNumber(_ token: [UInt8], text: String, at start: Int) throws(TOMLSyntaxError) -> TOMLNode? {
        var position = 0
        let hasSign = token[0] == UInt8(ascii: "+") || token[0] == UInt8(ascii: "-")
        if hasSign { position = 1 }
        guard position < token.count, Self.isDigit(token[position]) else { return nil }

        if token.count - position >= 2, token[position] == UInt8(ascii: "0"),
            let (radix, name) = Self.radixPrefix(token[position + 1])
        {
            guard !hasSign else {
                throw error(at: start, "a \(name) integer cannot have a sign: `\(text)`")
            }
            guard let end = Self.digitRun(token, from: position + 2, radix: radix), end == token.count else {
                throw error(at: start, "invalid \(name) integer `\(text)` (underscores must be between digits)")
            }
            let digits = String(decoding: token[(position + 2)...].filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
            guard let value = Int(digits, radix: radix) else {
                throw error(at: start, "integer `\(text)` does not fit in 64 bits")
            }
            return .integer(value)
        }

        let invalid = "invalid number `\(text)` (underscores must be between digits)"
        guard let integerEnd = Self.digitRun(token, from: position, radix: 10) else {
            throw error(at: start, invalid)
        }
        let integerDigits = token[position..<integerEnd].filter { $0 != UInt8(ascii: "_") }
        if integerDigits.count > 1, integerDigits[0] == UInt8(ascii: "0") {
            throw error(at: start, "leading zeros are not allowed: `\(text)`")
        }
        var end = integerEnd
        let cleaned = String(decoding: token.filter { $0 != UInt8(ascii: "_") }, as: UTF8.self)
        if end == token.count {
            guard let value = Int(cleaned) else {
                throw error(at: start, "integer `\(text)` does not fit in 64 bits")
            }
            return .integer(value)
        }
        if token[end] == UInt8(ascii: ".") {
            guard let fractionEnd = Self.digitRun(token, from: end + 1, radix: 10) else {
                throw error(at: start, "invalid float `\(text)` (a `.` needs digits on both sides)")
            }
            end = fractionEnd
        }
        if end < token.count, token[end] == UInt8(ascii: "e") || token[end] == UInt8(ascii: "E") {
            end += 1
            if end < token.count, token[end] == UInt8(ascii: "+") || token[end] == UInt8(ascii: "-") { end += 1 }
            guard let exponentEnd = Self.digitRun(token, from: end, radix: 10) else {
                throw error(at: start, "invalid float `\(text)` (the exponent needs digits)")
            }
            end = exponentEnd
        }
        guard end == token.count else {
            throw error(at: start, invalid)
        }
        guard let value = Double(cleaned), value.isFinite else {
            throw error(at: start, "float `\(text)` is out of range")
        }
        return .float(value)
    }

    private static func radixPrefix(_ byte: UInt8) -> (Int, String)? {
        switch byte {
        case UInt8(ascii: "x"): (16, "hexadecimal")
        case UInt8(ascii: "o"): (8, "octal")
        case UInt8(ascii: "b"): (2, "binary")
        default: nil
        }
    }

    /// The end of the digits starting at `start` (underscores allowed only between digits),
    /// or nil if there is no digit at `start` or an underscore is misplaced.
    private static func digitRun(_ token: [UInt8], from start: Int, radix: Int) -> Int? {
        func isDigit(_ byte: UInt8) -> Bool {
            guard let value = hexValue(byte) else { return false }
            return Int(value) < radix
        }
        var position = start
        guard position < token.count, isDigit(token[position]) else { return nil }
        position += 1
        while position < token.count {
            if isDigit(token[position]) {
                position += 1
            } else if token[position] == UInt8(ascii: "_") {
                guard position + 1 < token.count, isDigit(token[position + 1]) else { return nil }
                position += 2
            } else {
                break
            }
        }
        return position
    }

    // MARK: - Dates and times

    /// True for tokens meant as a date or time: with a `:`, or a digit-led token with a `-`
    /// that is not an exponent sign (numbers only have `-` first or after `e`).
    static func looksLikeDateOrTime(_ token: [UInt8]) -> Bool {
        if token.contains(UInt8(ascii: ":")) { return true }
        guard let first = token.first, isDigit(first) else { return false }
        for position in 1..<max(token.count, 1) where token[position] == UInt8(ascii: "-") {
            let previous = token[position - 1]
            if previous != UInt8(ascii: "e") && previous != UInt8(ascii: "E") { return true }
        }
        return false
    }

    /// `dddd-dd-dd`, not checked for range.
    static func isDatePattern(_ slice: ArraySlice<UInt8>) -> Bool {
        guard slice.count == 10 else { return false }
        for (offset, byte) in slice.enumerated() {
            let ok = offset == 4 || offset == 7 ? byte == UInt8(ascii: "-") : isDigit(byte)
            if !ok { return false }
        }
        return true
    }

    /// A TOML offset date-time, local date-time, local date or local time (seconds required).
    static func isDateTime(_ token: [UInt8]) -> Bool {
        func number(_ at: Int, _ count: Int) -> Int? {
            guard at + count <= token.count else { return nil }
            var value = 0
            for byte in token[at..<(at + count)] {
                guard isDigit(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        var position = 0
        var hasDate = false
        if token.count >= 10, isDatePattern(token[0..<10]) {
            guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
                (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
            else { return false }
            hasDate = true
            position = 10
            if position == token.count { return true }
            guard [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(token[position]) else { return false }
            position += 1
        }
        guard let hour = number(position, 2), token.count > position + 2, token[position + 2] == UInt8(ascii: ":"),
            let minute = number(position + 3, 2), token.count > position + 5, token[position + 5] == UInt8(ascii: ":"),
            let second = number(position + 6, 2), hour <= 23, minute <= 59, second <= 60
        else { return false }
        position += 8
        if position < token.count, token[position] == UInt8(ascii: ".") {
            position += 1
            let fractionStart = position
            while position < token.count, isDigit(token[position]) { position += 1 }
            guard position > fractionStart else { return false }
        }
        if position == token.count { return true }
        guard hasDate else { return false }
        if token[position] == UInt8(ascii: "Z") || token[position] == UInt8(ascii: "z") {
            return position + 1 == token.count
        }
        guard token[position] == UInt8(ascii: "+") || token[position] == UInt8(ascii: "-"), position + 6 == token.count,
            let offsetHour = number(position + 1, 2), token[position + 3] == UInt8(ascii: ":"),
            let offsetMinute = number(position + 4, 2), offsetHour <= 23, offsetMinute <= 59
        else { return false }
        return true
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
