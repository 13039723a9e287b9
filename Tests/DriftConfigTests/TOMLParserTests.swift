@testable import DriftConfig
import Testing
import TestSupport

/// Parses `text` or records the error and returns nil.
private func parse(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String: TOMLNode]? {
    do {
        return try TOMLParser.parse(text).root
    } catch {
        Issue.record("unexpected syntax error \(error) in:\n\(text)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The error `text` gives, or nil if it parses.
private func syntaxError(_ text: String) -> TOMLSyntaxError? {
    do {
        _ = try TOMLParser.parse(text)
        return nil
    } catch {
        return error
    }
}

@Suite("TOML parser: keys, tables and lines")
struct TOMLParserStructureTests {
    @Test("tables, keys, dotted and quoted keys, with their lines")
    func structure() throws {
        let document = try TOMLParser.parse("""
            # comment with key = "value" and [table]
            top = 1
            [box]
            name = "a # not a comment"   # comment
              "quoted key" = 2
            dotted.inner.leaf = 3
            [ radio . "eu.868" ]
            'literal' = 4
            [[peers]]
            host = "a"
            [[peers]]
            host = "b"
            """)
        let lines = document.lines
        #expect(lines["top"] == 2)
        #expect(lines["box"] == 3)
        #expect(lines["box.name"] == 4)
        #expect(lines["box.\"quoted key\""] == 5)
        #expect(lines["box.dotted"] == 6)
        #expect(lines["box.dotted.inner.leaf"] == 6)
        #expect(lines["radio"] == 7)
        #expect(lines["radio.\"eu.868\""] == 7)
        #expect(lines["radio.\"eu.868\".literal"] == 8)
        #expect(lines["peers"] == 9)
        #expect(lines["peers.host"] == 10)
        #expect(lines["#"] == nil)
        #expect(document.root == [
            "top": .integer(1),
            "box": .table([
                "name": .string("a # not a comment"), "quoted key": .integer(2),
                "dotted": .table(["inner": .table(["leaf": .integer(3)])]),
            ]),
            "radio": .table(["eu.868": .table(["literal": .integer(4)])]),
            "peers": .array([.table(["host": .string("a")]), .table(["host": .string("b")])]),
        ])
    }

    @Test("multi-line strings and arrays do not confuse line numbers")
    func multiline() throws {
        let document = try TOMLParser.parse(#"""
            [a]
            text = """
            fake = 1
            [fake]
            ends with quotes"""""
            literal = '''
            also = 'fake'
            '''
            escaped = """a \""" b
            still = "inside"
            """
            list = [
              "x", # comment ]
              [1, 2],
              { nested = 1 },
            ]
            after = true
            """#)
        let lines = document.lines
        #expect(lines["a.text"] == 2)
        #expect(lines["a.literal"] == 6)
        #expect(lines["a.escaped"] == 9)
        #expect(lines["a.list"] == 12)
        #expect(lines["a.after"] == 17)
        #expect(lines["fake"] == nil)
        #expect(lines["a.fake"] == nil)
        #expect(lines["a.also"] == nil)
        #expect(lines["a.still"] == nil)
        #expect(lines["a.list.nested"] == nil)
        let table = try #require(document.root["a"]?.tableValue)
        #expect(table["text"] == .string("fake = 1\n[fake]\nends with quotes\"\""))
        #expect(table["literal"] == .string("also = 'fake'\n"))
        #expect(table["escaped"] == .string("a \"\"\" b\nstill = \"inside\"\n"))
        #expect(table["list"] == .array([.string("x"), .array([.integer(1), .integer(2)]), .table(["nested": .integer(1)])]))
    }

    @Test("inline tables record their keys")
    func inlineTableLines() throws {
        let lines = try TOMLParser.parse("""
            [x]
            point = { lat = 1.0, "lon" = 2.0, deep = { z = 3 } }
            next = 1
            """).lines
        #expect(lines["x.point"] == 2)
        #expect(lines["x.point.lat"] == 2)
        #expect(lines["x.point.lon"] == 2)
        #expect(lines["x.point.deep.z"] == 2)
        #expect(lines["x.next"] == 3)
    }

    @Test("escapes in quoted keys are decoded; empty quoted keys are allowed")
    func escapedKeys() throws {
        let document = try TOMLParser.parse("\"a\\u0062c\" = 1\n\"tab\\there\" = 2\n\"\" = 3\n")
        #expect(document.lines["abc"] == 1)
        #expect(document.lines[#""tab\there""#] == 2)
        #expect(document.root == ["abc": .integer(1), "tab\there": .integer(2), "": .integer(3)])
    }

    @Test("CRLF line endings count once per line")
    func crlf() throws {
        let document = try TOMLParser.parse("[a]\r\nb = 1\r\n\r\nc = \"\"\"x\r\ny\"\"\" # c\r\n")
        #expect(document.lines["a.b"] == 2)
        #expect(document.lines["a.c"] == 4)
        #expect(document.root["a"] == .table(["b": .integer(1), "c": .string("x\ny")]))
    }

    @Test("BOM, empty documents, whitespace and comments only")
    func emptyAndBOM() {
        #expect(parse("") == [:])
        #expect(parse("\u{FEFF}") == [:])
        #expect(parse("\u{FEFF}a = 1") == ["a": .integer(1)])
        #expect(parse("  # only a comment\n\t\n\n") == [:])
        #expect(syntaxError("a = 1\u{FEFF}") != nil)
    }

    @Test("super-tables may follow sub-tables; dotted tables may gain sub-tables via headers")
    func tableDefinitionOrder() {
        #expect(parse("[x.y.z.w]\na = 1\n[x]\nb = 2\n") == [
            "x": .table(["b": .integer(2), "y": .table(["z": .table(["w": .table(["a": .integer(1)])])])]),
        ])
        // From the spec: [fruit.apple.texture] may add to a table made by dotted keys.
        #expect(parse("""
            [fruit]
            apple.color = "red"
            apple.taste.sweet = true
            [fruit.apple.texture]
            smooth = true
            """) == [
                "fruit": .table(["apple": .table([
                    "color": .string("red"), "taste": .table(["sweet": .bool(true)]),
                    "texture": .table(["smooth": .bool(true)]),
                ])]),
            ])
        #expect(parse("a.b.c = 1\na.d = 2\n") == ["a": .table(["b": .table(["c": .integer(1)]), "d": .integer(2)])])
        #expect(parse("3.14159 = \"pi\"") == ["3": .table(["14159": .string("pi")])])
        #expect(parse("[ j . \"ʞ\" . 'l' ]\n") == ["j": .table(["ʞ": .table(["l": .table([:])])])])
    }

    @Test("arrays of tables, nested, and sub-tables of their last element (spec example)")
    func arraysOfTables() {
        let root = parse("""
            [[fruits]]
            name = "apple"

            [fruits.physical]  # subtable
            color = "red"

            [[fruits.varieties]]  # nested array of tables
            name = "red delicious"

            [[fruits.varieties]]
            name = "granny smith"

            [[fruits]]
            name = "banana"

            [[fruits.varieties]]
            name = "plantain"
            """)
        #expect(root == [
            "fruits": .array([
                .table([
                    "name": .string("apple"), "physical": .table(["color": .string("red")]),
                    "varieties": .array([.table(["name": .string("red delicious")]), .table(["name": .string("granny smith")])]),
                ]),
                .table(["name": .string("banana"), "varieties": .array([.table(["name": .string("plantain")])])]),
            ]),
        ])
        #expect(parse("[[empty]]\n[[empty]]\n") == ["empty": .array([.table([:]), .table([:])])])
    }

    @Test("redefinitions are errors with the line of the first definition")
    func redefinitions() throws {
        let cases: [(String, Int, String)] = [
            ("a = 1\na = 2", 2, "duplicate key `a` (first on line 1)"),
            ("[a]\nb = 1\n\n[a]", 4, "table [a] is defined twice (first on line 1)"),
            ("[a.b]\n[a]\n[a]", 3, "table [a] is defined twice"),
            ("[fruit]\napple.color = \"red\"\n[fruit.apple]", 3, "table [fruit.apple] was already defined with dotted keys"),
            ("[a]\nb = 1\n[a.b]", 3, "`a.b` is already an integer"),
            ("[a]\nb = 1\n[a.b.c]", 3, "`a.b` is already an integer"),
            ("a = {b = 1}\na.c = 2", 2, "inline tables cannot be extended"),
            ("a = {b = 1}\n[a]", 2, "`a` is already a table"),
            ("a = {b = {c = 1}, b.d = 2}", 1, "inline tables cannot be extended"),
            ("a = {b = 1, b = 2}", 1, "duplicate key `a.b`"),
            ("a = []\n[[a]]", 2, "an array value"),
            ("[[a]]\n[a]", 2, "already an array of tables"),
            ("[a]\n[[a]]", 2, "already a table"),
            ("[a.b.c]\nz = 9\n[a]\nb.c.t = 1", 4, "dotted keys cannot add to table `a.b`"),
            ("[[a]]\nb = 1\n[x]\n[a.b]", 4, "`a.b` is already an integer"),
            ("a.b = 1\na.b.c = 2", 2, "`a.b` is already an integer"),
            ("a = 1\na.b = 2", 2, "`a` is already an integer"),
            ("\"a\" = 1\na = 2", 2, "duplicate key `a`"),
        ]
        for (text, line, message) in cases {
            let error = try #require(syntaxError(text), "accepted: \(text)")
            #expect(error.line == line, "\(text): \(error)")
            #expect(error.message.contains(message), "\(text): \(error)")
        }
    }

    @Test("key and header syntax errors point at the problem")
    func keyErrors() throws {
        let cases: [(String, Int, Int, String)] = [
            ("[.]", 1, 2, "expected a key, found `.`"),
            ("[a.]", 1, 4, "expected a key after `.`, found `]`"),
            ("[]", 1, 2, "expected a key, found `]`"),
            ("[a", 1, 3, "expected `]`"),
            ("[[a]", 1, 4, "expected `]]`"),
            ("[[a] ]", 1, 4, "expected `]]`"),
            ("[a] b = 1", 1, 5, "expected the end of the line after a table header"),
            ("= 1", 1, 1, "expected a key, found `=`"),
            ("a b = 1", 1, 3, "expected `=` after the key `a`"),
            ("a = 1 b = 2", 1, 7, "expected the end of the line after a value"),
            ("a\n= 1", 1, 2, "expected `=` after the key `a`, found the end of the line"),
            ("a =", 1, 4, "expected a value, found the end of the file"),
            ("a = # x", 1, 5, "expected a value, found `#`"),
            ("\"\"\"a\"\"\" = 1", 1, 1, "multi-line string cannot be a key"),
            ("ké = 1", 1, 2, "expected `=` after the key `k`, found `é`"),
            ("x = 1\r", 1, 6, "carriage return"),
            ("# a\u{7F}", 1, 4, "control character U+007F is not allowed in a comment"),
        ]
        for (text, line, column, message) in cases {
            let error = try #require(syntaxError(text), "accepted: \(text)")
            #expect(error.line == line && error.column == column, "\(text): \(error)")
            #expect(error.message.contains(message), "\(text): \(error)")
        }
    }

    @Test("malformed input never traps and never hangs")
    func garbage() {
        let texts = [
            "[", "[[", "=", "\"", "'''", "\"\"\"", "a = [", "a = {", "a = { b = [", "a.\n=", "[a.]", "\u{0}", "a = \"\\",
            "a = \"\\u", "a = \"\\U0011", "a = 0x", "a = 1e", "a = +", "a = -_", "a = 1979-", "a = 12:", "[[a]]]", "]", "}",
            "a = {,}", "a = [,]", "a = \"\"\"\\", "a = '''\r", "a = { b = 1,",
        ]
        for text in texts {
            #expect(syntaxError(text) != nil, "accepted: \(text.debugDescription)")
        }
        #expect(syntaxError("[a\nb = 1\n")?.line == 1)
    }

    @Test("nesting is limited, so hostile input cannot overflow the stack")
    func depthLimit() throws {
        let ok = "a = " + String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
        #expect(syntaxError(ok) == nil)
        let deep = "a = " + String(repeating: "[", count: 100_000)
        #expect(try #require(syntaxError(deep)).message.contains("nested too deeply"))
        let inline = "a = " + String(repeating: "{b = ", count: 10_000)
        #expect(try #require(syntaxError(inline)).message.contains("nested too deeply"))
        let dotted = String(repeating: "a.", count: 5_000) + "b = 1"
        #expect(try #require(syntaxError(dotted)).message.contains("nested too deeply"))
        let header = "[" + String(repeating: "a.", count: 5_000) + "b]"
        #expect(try #require(syntaxError(header)).message.contains("nested too deeply"))
        #expect(syntaxError(String(repeating: "[", count: 100_000)) != nil)
        // 40 header parts plus 40 dotted parts exceed the limit together.
        let path = (1...40).map { "t\($0)" }.joined(separator: ".")
        #expect(try #require(syntaxError("[\(path)]\n\(path) = 1")).message.contains("nested too deeply"))
    }

    @Test("a 1 MiB document parses completely")
    func largeDocument() async throws {
        var text = "[big]\n"
        for index in 0..<50_000 { text += "key_\(index) = \(index)\n" }
        text += "[strings]\nlong = \"" + String(repeating: "é", count: 200_000) + "\"\n"
        text += "list = [" + String(repeating: "1, ", count: 50_000) + "]\n"
        #expect(text.utf8.count > 1_000_000)
        // Seconds of CPU in a debug build: on the CPU lane, off the cooperative pool.
        let source = text
        let document = try await runCPUBound { try TOMLParser.parse(source) }
        #expect(document.root["big"]?.tableValue?.count == 50_000)
        #expect(document.lines["big.key_49999"] == 50_001)
        #expect(document.root["strings"]?.tableValue?["long"]?.stringValue?.count == 200_000)
        guard case .array(let list)? = document.root["strings"]?.tableValue?["list"] else {
            Issue.record("list missing")
            return
        }
        #expect(list.count == 50_000)
    }

    @Test("the config loader turns `[.]` into a syntax issue instead of crashing")
    func loaderRegression() throws {
        let loader = ConfigLoader(systemBoardDirectories: [])
        for text in ["[.]", "[box]\n[.]\n", "[a.]\n", "[[.]]"] {
            let error = #expect(throws: ConfigError.self) {
                _ = try loader.load(text: text, fileName: "driftd.toml", baseDirectory: nil)
            }
            let issue = try #require(error?.issues.first)
            #expect(issue.kind == .syntax)
            #expect(issue.column != nil)
            #expect(issue.message.hasPrefix("TOML syntax error: expected a key"), "\(issue)")
        }
    }
}
