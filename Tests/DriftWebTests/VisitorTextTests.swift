import DriftDaemon
import Foundation
import HTTPTypes
import Testing

@Suite("Visitor text: what is removed, what counts as showing nothing")
struct VisitorTextTests {
    @Test("bidi embeddings, overrides and isolates and tag characters are removed; everything else stays")
    func stripped() {
        #expect(VisitorText.stripped("gnp.\u{202E}exe") == "gnp.exe")
        #expect(VisitorText.stripped("\u{202A}a\u{202B}b\u{202C}c\u{202D}d\u{202E}e") == "abcde")
        #expect(VisitorText.stripped("\u{2066}a\u{2067}b\u{2068}c\u{2069}") == "abc")
        #expect(VisitorText.stripped("🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}") == "🏴")
        #expect(VisitorText.stripped("\u{E0000}x\u{E007F}") == "x")
        // Not removed: marks, joiners, selectors, combining characters, line breaks.
        for kept in ["a\u{200E}b\u{200F}c\u{061C}", "👩‍👩‍👧", "❤\u{FE0F}", "e\u{0301}", "line\nbreak", "ש1", "plain text"] {
            #expect(VisitorText.stripped(kept) == kept)
        }
        // The neighbours of the removed ranges stay.
        for scalar: Unicode.Scalar in ["\u{2029}", "\u{202F}", "\u{2065}", "\u{206A}", "\u{E0080}"] {
            #expect(!VisitorText.isRemoved(scalar), "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test("text with nothing visible is invisible; empty text is not; one visible character is enough")
    func invisible() {
        for text in ["\u{200B}", " ", "\n\t\r", "\u{200B}\u{200C}\u{200D}\u{2060}\u{FEFF}", "\u{202E}", "\u{2066}\u{2069}",
                     "\u{E0041}\u{E007F}", "\u{3164}\u{115F}\u{1160}\u{FFA0}", "\u{00AD}", "\u{180E}", "\u{FE0F}", "\u{2028}\u{00A0}\u{3000}",
                     "\u{0001}\u{007F}", "\u{034F}", "\u{2061}\u{2064}"] {
            #expect(VisitorText.isInvisible(text), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        for text in ["", "a", " a ", "\u{200B}.", "👩‍👩‍👧", "e\u{0301}", "\u{202E}x", "ـ"] {
            #expect(!VisitorText.isInvisible(text), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("normalised: refuses invisible text with 422 naming the field, strips the rest, keeps empty text empty")
    func normalised() throws {
        #expect(try VisitorText.normalised("a\u{202E}b", field: "text") == "ab")
        #expect(try VisitorText.normalised("", field: "text") == "")
        #expect(try VisitorText.normalised(nil as String?, field: "hint") == nil)
        #expect(try VisitorText.normalised("hint\u{E0020}" as String?, field: "hint") == "hint")
        do {
            _ = try VisitorText.normalised("\u{200B}\u{202E}", field: "hint")
            Issue.record("invisible text was accepted")
        } catch {
            #expect(error.status.code == 422)
            #expect(error.code == "invalid")
            #expect(error.details == .object(["field": .string("hint"), "problem": .string(error.message.replacingOccurrences(of: "hint: ", with: ""))]))
        }
    }
}
