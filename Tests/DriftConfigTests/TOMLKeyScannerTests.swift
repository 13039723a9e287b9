@testable import DriftConfig
import Testing

@Suite("Key line scanner")
struct TOMLKeyScannerTests {
    @Test("tables, keys, dotted and quoted keys")
    func structure() {
        let lines = TOMLKeyScanner.scan("""
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
    }

    @Test("multi-line strings and arrays do not confuse line numbers")
    func multiline() {
        let lines = TOMLKeyScanner.scan(#"""
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
    }

    @Test("inline tables record their keys")
    func inlineTables() {
        let lines = TOMLKeyScanner.scan("""
            [x]
            point = { lat = 1.0, "lon" = 2.0, deep = { z = 3 } }
            next = 1
            """)
        #expect(lines["x.point"] == 2)
        #expect(lines["x.point.lat"] == 2)
        #expect(lines["x.point.lon"] == 2)
        #expect(lines["x.point.deep.z"] == 2)
        #expect(lines["x.next"] == 3)
    }

    @Test("escapes in quoted keys are decoded")
    func escapedKeys() {
        let lines = TOMLKeyScanner.scan("\"a\\u0062c\" = 1\n\"tab\\there\" = 2\n")
        #expect(lines["abc"] == 1)
        #expect(lines[#""tab\there""#] == 2)
    }

    @Test("garbage never traps and always terminates")
    func garbage() {
        for text in ["[", "[[", "=", "\"", "'''", "\"\"\"", "a = [", "a = {", "a = { b = [", "a.\n=", "[a.]", "\u{0}", "a = \"\\"] {
            _ = TOMLKeyScanner.scan(text)
        }
        let lines = TOMLKeyScanner.scan("[a\nb = 1\n")
        #expect(lines["b"] == 2 || lines["a.b"] == 2)
    }

    @Test("CRLF line endings count once per line")
    func crlf() {
        let lines = TOMLKeyScanner.scan("[a]\r\nb = 1\r\n\r\nc = 2\r\n")
        #expect(lines["a.b"] == 2)
        #expect(lines["a.c"] == 4)
    }
}

@Suite("Suggestions and writer")
struct SupportTests {
    @Test("edit distance and closest candidate")
    func suggestions() {
        #expect(Suggestion.editDistance("baud", "baud") == 0)
        #expect(Suggestion.editDistance("bαud", "baud") == 1)
        #expect(Suggestion.editDistance("hop_lmiit", "hop_limit") == 1)
        #expect(Suggestion.closest(to: "baudrate", among: ["baud", "port"]) == "baud")
        #expect(Suggestion.closest(to: "data-dir", among: ["data_dir", "min_free_mb"]) == "data_dir")
        #expect(Suggestion.closest(to: "xyz", among: ["baud", "port"]) == nil)
    }

    @Test("written strings and floats read back as TOML")
    func writer() throws {
        #expect(TOMLWriter.quoted("a\"b\\c\n\u{1}") == #""a\"b\\c\n\u0001""#)
        #expect(TOMLWriter.float(5) == "5.0")
        #expect(TOMLWriter.float(0.2794) == "0.2794")
        let root: [String: TOMLNode] = [
            "b": .table(["s": .string("x\"y"), "n": .integer(-3), "f": .float(1), "arr": .array([.integer(1), .string("z")])]),
            "a": .table(["nested": .table(["k": .bool(true)])]),
            "top": .integer(1),
        ]
        let text = TOMLWriter.document(root, order: [("b", ["s", "n"])])
        guard case .success(let parsed) = ParsedConfigFile.parse(text: text, file: "w.toml") else {
            Issue.record("written TOML does not parse:\n\(text)")
            return
        }
        #expect(parsed.root == root)
        #expect(text.hasPrefix("top = 1\n"))
    }
}
