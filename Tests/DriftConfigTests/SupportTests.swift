@testable import DriftConfig
import Testing

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
