@testable import DriftConfig
import Testing

/// The value of `v = <text>`, or nil (recorded) when it does not parse.
private func value(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> TOMLNode? {
    do {
        return try TOMLParser.parse("v = \(text)").root["v"]
    } catch {
        Issue.record("unexpected syntax error \(error) for v = \(text)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The error `v = <text>` gives, or nil if it parses.
private func valueError(_ text: String) -> TOMLSyntaxError? {
    do {
        _ = try TOMLParser.parse("v = \(text)")
        return nil
    } catch {
        return error
    }
}

@Suite("TOML parser: values")
struct TOMLParserValueTests {
    @Test("basic strings and every escape")
    func basicStrings() {
        #expect(value(#""I'm a string. \"You can quote me\". Name\tJos\u00E9\nLocation\tSF.""#)
            == .string("I'm a string. \"You can quote me\". Name\tJosé\nLocation\tSF."))
        #expect(value(#""\b\t\n\f\r\"\\""#) == .string("\u{08}\t\n\u{0C}\r\"\\"))
        #expect(value(#""\u00e9\U0001F600\u0000""#) == .string("é😀\u{0}"))
        #expect(value(#""tab\there, é, 😀""#) == .string("tab\there, é, 😀"))
        #expect(value("\"\t\"") == .string("\t"))
        #expect(value("\"\"") == .string(""))
    }

    @Test("multi-line basic strings: first newline trimmed, line-ending backslash, quotes before the end")
    func multilineBasicStrings() {
        #expect(value("\"\"\"\nRoses are red\nViolets are blue\"\"\"") == .string("Roses are red\nViolets are blue"))
        let folded = "\"\"\"\nThe quick brown \\\n\n\n  fox jumps over \\\n    the lazy dog.\"\"\""
        #expect(value(folded) == .string("The quick brown fox jumps over the lazy dog."))
        let trailingSpace = "\"\"\"\\   \n  x \\\t\r\n  y\"\"\""
        #expect(value(trailingSpace) == .string("x y"))
        #expect(value(#""""Here are two quotation marks: "". Simple enough.""""#)
            == .string("Here are two quotation marks: \"\". Simple enough."))
        #expect(value(#""""Here are three quotation marks: ""\".""""#) == .string("Here are three quotation marks: \"\"\"."))
        #expect(value(#"""""This," she said, "is just a pointless statement."""""#)
            == .string("\"This,\" she said, \"is just a pointless statement.\""))
        #expect(value("\"\"\"\"\"\"") == .string(""))
        #expect(value("\"\"\"a\r\nb\"\"\"") == .string("a\nb"))
    }

    @Test("literal strings, single- and multi-line")
    func literalStrings() {
        #expect(value(#"'C:\Users\nodejs\templates'"#) == .string(#"C:\Users\nodejs\templates"#))
        #expect(value(#"'<\i\c*\s*>'"#) == .string(#"<\i\c*\s*>"#))
        #expect(value("'''\nThe first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n'''")
            == .string("The first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n"))
        #expect(value("'''Here are fifteen quotation marks: \"\"\"\"\"\"\"\"\"\"\"\"\"\"\"'''")
            == .string("Here are fifteen quotation marks: " + String(repeating: "\"", count: 15)))
        #expect(value("''''That,' she said, 'is still pointless.'''''") == .string("'That,' she said, 'is still pointless.''"))
        #expect(value("''") == .string(""))
    }

    @Test("string errors name the problem and its column")
    func stringErrors() throws {
        let cases: [(String, Int, Int, String)] = [
            // "v = " is 4 columns; the value starts at column 5.
            (#""a\qb""#, 1, 7, "invalid escape `\\q`"),
            (#""é\x""#, 1, 7, "invalid escape"),
            (#""/d\ev""#, 1, 8, "invalid escape `\\e`"),
            (#""\uD800""#, 1, 6, "not a Unicode scalar value"),
            (#""\U00110000""#, 1, 6, "not a Unicode scalar value"),
            (#""\u12""#, 1, 6, "exactly 4 hexadecimal digits"),
            ("\"no end", 1, 5, "unterminated string"),
            ("\"two\nlines\"", 1, 5, "unterminated string"),
            ("'no end", 1, 5, "unterminated literal string"),
            ("\"\"\"never closed\n", 1, 5, "unterminated multi-line string"),
            ("'''never closed\n", 1, 5, "unterminated multi-line string"),
            ("\"a\u{1}b\"", 1, 7, "control character U+0001 is not allowed in a string"),
            ("'a\u{7F}'", 1, 7, "control character U+007F"),
            ("\"\"\"a\u{0}\"\"\"", 1, 9, "control character U+0000"),
            ("\"\"\"a\"\"\"\"\"\"", 1, 9, "too many quotes"),
            ("\"\"\"a \\ b\"\"\"", 1, 10, "invalid escape"),
            ("'''a\rb'''", 1, 9, "carriage return"),
        ]
        for (text, line, column, message) in cases {
            let error = try #require(valueError(text), "accepted: v = \(text)")
            #expect(error.line == line && error.column == column, "v = \(text): \(error)")
            #expect(error.message.contains(message), "v = \(text): \(error)")
        }
    }

    @Test("integers: decimal with underscores, signs, hex, octal, binary, 64-bit limits")
    func integers() {
        let cases: [(String, Int)] = [
            ("+99", 99), ("42", 42), ("0", 0), ("-17", -17), ("+0", 0), ("-0", 0),
            ("1_000", 1000), ("5_349_221", 5_349_221), ("53_49_221", 5_349_221), ("1_2_3_4_5", 12345),
            ("0xDEADBEEF", 0xDEADBEEF), ("0xdeadbeef", 0xDEADBEEF), ("0xdead_beef", 0xDEADBEEF), ("0x00ff", 255),
            ("0o01234567", 0o01234567), ("0o755", 0o755), ("0b11010110", 0b11010110), ("0b1_0", 2),
            ("9223372036854775807", Int.max), ("-9223372036854775808", Int.min), ("0x7FFFFFFFFFFFFFFF", Int.max),
        ]
        for (text, expected) in cases {
            #expect(value(text) == .integer(expected), "\(text)")
        }
    }

    @Test("integer errors")
    func integerErrors() throws {
        let cases: [(String, String)] = [
            ("012", "leading zeros"), ("-01", "leading zeros"), ("0_1", "leading zeros"),
            ("1__2", "underscores"), ("_1", "strings need quotes"), ("1_", "underscores"),
            ("+0x1", "cannot have a sign"), ("-0b1", "cannot have a sign"), ("0X1", "invalid number"),
            ("0xG", "invalid hexadecimal"), ("0o8", "invalid octal"), ("0b2", "invalid binary"), ("0x", "invalid hexadecimal"),
            ("0x_1", "invalid hexadecimal"), ("9223372036854775808", "does not fit in 64 bits"),
            ("-9223372036854775809", "does not fit"), ("0x8000000000000000", "does not fit"),
            ("99999999999999999999999", "does not fit"), ("1-2", "invalid date or time"), ("+", "strings need quotes"),
        ]
        for (text, message) in cases {
            let error = try #require(valueError(text), "accepted: \(text)")
            #expect(error.message.contains(message), "\(text): \(error)")
            #expect(error.line == 1 && error.column == 5, "\(text): \(error)")
        }
    }

    @Test("floats: fractions, exponents, underscores, inf and nan")
    func floats() throws {
        let cases: [(String, Double)] = [
            ("+1.0", 1), ("3.1415", 3.1415), ("-0.01", -0.01), ("5e+22", 5e22), ("1e06", 1e6), ("-2E-2", -0.02),
            ("6.626e-34", 6.626e-34), ("224_617.445_991_228", 224_617.445_991_228), ("0.0", 0), ("-0.0", 0),
            ("1e1_0", 1e10), ("0e0", 0), ("inf", .infinity), ("+inf", .infinity), ("-inf", -.infinity),
        ]
        for (text, expected) in cases {
            #expect(value(text) == .float(expected), "\(text)")
        }
        for text in ["nan", "+nan", "-nan"] {
            guard case .float(let number)? = value(text) else {
                Issue.record("\(text) is not a float")
                continue
            }
            #expect(number.isNaN)
        }
        guard case .float(let negativeZero)? = value("-0.0") else { return }
        #expect(negativeZero.sign == .minus)
    }

    @Test("float errors")
    func floatErrors() throws {
        let cases: [(String, String)] = [
            (".7", "strings need quotes"), ("7.", "needs digits on both sides"), ("3.e+20", "needs digits on both sides"),
            ("1e", "exponent needs digits"), ("1e+", "exponent needs digits"), ("01.5", "leading zeros"),
            ("1.5_", "needs digits"), ("1e999", "out of range"), ("-1e999", "out of range"), ("1.2.3", "invalid number"),
            ("infinity", "strings need quotes"), ("NaN", "strings need quotes"), ("1_.5", "underscores"),
        ]
        for (text, message) in cases {
            let error = try #require(valueError(text), "accepted: \(text)")
            #expect(error.message.contains(message), "\(text): \(error)")
        }
    }

    @Test("booleans, and bare words that are not values")
    func booleans() throws {
        #expect(value("true") == .bool(true))
        #expect(value("false") == .bool(false))
        for text in ["True", "FALSE", "yes", "tru", "hello"] {
            let error = try #require(valueError(text), "accepted: \(text)")
            #expect(error.message == "invalid value `\(text)` (strings need quotes)")
        }
    }

    @Test("dates and times (spec examples) are kept as their text")
    func dateTimes() {
        let texts = [
            "1979-05-27T07:32:00Z", "1979-05-27T00:32:00-07:00", "1979-05-27T00:32:00.999999-07:00",
            "1979-05-27 07:32:00Z", "1979-05-27t07:32:00z", "1979-05-27T07:32:00", "1979-05-27T00:32:00.999999",
            "1979-05-27", "07:32:00", "00:32:00.999999", "2000-02-29", "1990-12-31T23:59:60Z", "1979-05-27T07:32:00+14:00",
        ]
        for text in texts {
            #expect(value(text) == .dateTime(text), "\(text)")
        }
        #expect(value("[1979-05-27, 07:32:00]") == .array([.dateTime("1979-05-27"), .dateTime("07:32:00")]))
        #expect(value("{ at = 1979-05-27 07:32:00 }") == .table(["at": .dateTime("1979-05-27 07:32:00")]))
    }

    @Test("invalid dates and times")
    func dateTimeErrors() throws {
        let texts = [
            "1979-02-30", "1900-02-29", "1979-13-01", "1979-00-10", "1979-05-27T25:00:00", "1979-05-27T07:60:00",
            "07:32", "07:32:00Z", "1979-05-27T07:32:00+7:00", "1979-05-27T07:32:00+07", "1979-05-27T", "1979-5-27",
            "1979-05-27T07:32:00.", "1979-05-27X07:32:00", "07:32:00-07:00",
        ]
        for text in texts {
            let error = try #require(valueError(text), "accepted: \(text)")
            #expect(error.message.contains("invalid date or time") || error.message.contains("expected the end of the line"),
                "\(text): \(error)")
        }
    }

    @Test("arrays: nested, mixed, multi-line with comments and a trailing comma (spec examples)")
    func arrays() {
        #expect(value("[ 1, 2, 3 ]") == .array([.integer(1), .integer(2), .integer(3)]))
        #expect(value("[ \"red\", 'yellow', \"\"\"green\"\"\" ]") == .array([.string("red"), .string("yellow"), .string("green")]))
        #expect(value("[ [ 1, 2 ], [3, 4, 5] ]")
            == .array([.array([.integer(1), .integer(2)]), .array([.integer(3), .integer(4), .integer(5)])]))
        #expect(value("[ 0.1, 0.2, 0.5, 1, 2, 5 ]")
            == .array([.float(0.1), .float(0.2), .float(0.5), .integer(1), .integer(2), .integer(5)]))
        #expect(value("""
            [
              "Foo Bar <foo@example.com>",  # a comment
              { name = "Baz Qux", email = "bazqux@example.com", url = "https://example.com/bazqux" },
            ]
            """) == .array([
                .string("Foo Bar <foo@example.com>"),
                .table(["name": .string("Baz Qux"), "email": .string("bazqux@example.com"), "url": .string("https://example.com/bazqux")]),
            ]))
        #expect(value("[\n  1,\n  2, # two\n]") == .array([.integer(1), .integer(2)]))
        #expect(value("[]") == .array([]))
        #expect(value("[ # empty\n]") == .array([]))
        #expect(value("[[],[[]]]") == .array([.array([]), .array([.array([])])]))
    }

    @Test("array errors")
    func arrayErrors() throws {
        let cases: [(String, Int, Int, String)] = [
            ("[1 2]", 1, 8, "expected `,` or `]` in the array, found `2`"),
            ("[1,,2]", 1, 8, "expected a value, found `,`"),
            ("[,]", 1, 6, "expected a value, found `,`"),
            ("[1,\n2", 1, 5, "unterminated array"),
            ("[\n  1\n  2\n]", 3, 3, "expected `,` or `]`"),
        ]
        for (text, line, column, message) in cases {
            let error = try #require(valueError(text), "accepted: v = \(text)")
            #expect(error.line == line && error.column == column, "v = \(text): \(error)")
            #expect(error.message.contains(message), "v = \(text): \(error)")
        }
    }

    @Test("inline tables (spec examples)")
    func inlineTables() {
        #expect(value("{ first = \"Tom\", last = \"Preston-Werner\" }")
            == .table(["first": .string("Tom"), "last": .string("Preston-Werner")]))
        #expect(value("{ x = 1, y = 2 }") == .table(["x": .integer(1), "y": .integer(2)]))
        #expect(value("{ type.name = \"pug\" }") == .table(["type": .table(["name": .string("pug")])]))
        #expect(value("{}") == .table([:]))
        #expect(value("{ a = { b = [ { c = 1 } ] }, d = \"\"\"x\ny\"\"\" }")
            == .table(["a": .table(["b": .array([.table(["c": .integer(1)])])]), "d": .string("x\ny")]))
        #expect(value("{ a.b = 1, a.c = 2 }") == .table(["a": .table(["b": .integer(1), "c": .integer(2)])]))
    }

    @Test("inline table errors: one line, no trailing comma, closed")
    func inlineTableErrors() throws {
        let cases: [(String, Int, Int, String)] = [
            ("{ a = 1, }", 1, 12, "cannot end with a comma"),
            ("{ a = 1\n}", 1, 12, "must be on one line"),
            ("{\n a = 1 }", 1, 6, "expected a key, found the end of the line"),
            ("{ a = 1 b = 2 }", 1, 13, "expected `,` or `}` in the inline table"),
            ("{ a = 1", 1, 5, "unterminated inline table"),
            ("{ a = 1, a = 2 }", 1, 14, "duplicate key `v.a`"),
            ("{ , }", 1, 7, "expected a key"),
        ]
        for (text, line, column, message) in cases {
            let error = try #require(valueError(text), "accepted: v = \(text)")
            #expect(error.line == line && error.column == column, "v = \(text): \(error)")
            #expect(error.message.contains(message), "v = \(text): \(error)")
        }
    }

    @Test("the spec's example document")
    func specExample() throws {
        let document = try TOMLParser.parse("""
            # This is a TOML document

            title = "TOML Example"

            [owner]
            name = "Tom Preston-Werner"
            dob = 1979-05-27T07:32:00-08:00

            [database]
            enabled = true
            ports = [ 8000, 8001, 8002 ]
            data = [ ["delta", "phi"], [3.14] ]
            temp_targets = { cpu = 79.5, case = 72.0 }

            [servers]

            [servers.alpha]
            ip = "10.0.0.1"
            role = "frontend"

            [servers.beta]
            ip = "10.0.0.2"
            role = "backend"
            """)
        #expect(document.root == [
            "title": .string("TOML Example"),
            "owner": .table(["name": .string("Tom Preston-Werner"), "dob": .dateTime("1979-05-27T07:32:00-08:00")]),
            "database": .table([
                "enabled": .bool(true), "ports": .array([.integer(8000), .integer(8001), .integer(8002)]),
                "data": .array([.array([.string("delta"), .string("phi")]), .array([.float(3.14)])]),
                "temp_targets": .table(["cpu": .float(79.5), "case": .float(72.0)]),
            ]),
            "servers": .table([
                "alpha": .table(["ip": .string("10.0.0.1"), "role": .string("frontend")]),
                "beta": .table(["ip": .string("10.0.0.2"), "role": .string("backend")]),
            ]),
        ])
        #expect(document.lines["servers.beta.role"] == 23)
        #expect(document.lines["database.temp_targets.case"] == 13)
    }

    @Test("the writer's output parses back to the same tree")
    func writerRoundTrip() throws {
        let root: [String: TOMLNode] = [
            "top": .string("a\"b\\c\n\t\u{1}\u{7F}é😀"),
            "t": .table([
                "when": .dateTime("1979-05-27T07:32:00Z"), "f": .float(-inf), "big": .integer(Int.min),
                "list": .array([.array([]), .table(["k": .bool(false)]), .float(1e-300)]),
                "odd key": .table(["x.y": .integer(1)]),
            ]),
            "arr": .array([.table(["n": .integer(1)]), .table(["n": .integer(2), "sub": .table(["z": .string("")])])]),
        ]
        let text = TOMLWriter.document(root, order: [], header: ["generated", ""])
        let parsed = try TOMLParser.parse(text)
        #expect(parsed.root == root, "\(text)")
    }
}

private let inf = Double.infinity
