import Foundation
import DriftCore
import TestSupport
import Testing

@Suite struct ShareCodeTests {
    @Test func randomCodesRoundTripThroughEveryTypedForm() throws {
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<2_000 {
            let code = ShareCode.random(using: &generator)
            #expect(code.rawValue.count == 8)
            #expect(try ShareCode(parsing: code.rawValue) == code)
            #expect(try ShareCode(parsing: code.displayForm) == code)
            #expect(try ShareCode(parsing: code.displayForm.lowercased()) == code)
            let spaced = code.rawValue.map(String.init).joined(separator: " ")
            #expect(try ShareCode(parsing: spaced) == code)
            // People type O for 0 and I or L for 1.
            let lookalikes = code.rawValue.replacingOccurrences(of: "0", with: "O").replacingOccurrences(of: "1", with: "l")
            #expect(try ShareCode(parsing: lookalikes) == code)
        }
    }

    @Test func everySingleSubstitutionIsDetected() async throws {
        // 12 400 typos: on the CPU lane, off the cooperative pool; the accepted ones come back.
        let accepted = await runCPUBound { () -> [String] in
            var generator = SeededGenerator(seed: 9)
            let alphabet = ShareCode.alphabet
            var accepted: [String] = []
            for _ in 0..<50 {
                let code = ShareCode.random(using: &generator)
                let symbols = Array(code.rawValue)
                for position in 0..<8 {
                    for replacement in alphabet where replacement != symbols[position] {
                        var typo = symbols
                        typo[position] = replacement
                        if (try? ShareCode(parsing: String(typo))) != nil { accepted.append(String(typo)) }
                    }
                }
            }
            return accepted
        }
        #expect(accepted.isEmpty, "typos accepted: \(accepted.prefix(10))")
    }

    @Test func mostAdjacentSwapsAreDetected() {
        var generator = SeededGenerator(seed: 11)
        var swaps = 0
        var caught = 0
        for _ in 0..<500 {
            let symbols = Array(ShareCode.random(using: &generator).rawValue)
            for position in 0..<7 where symbols[position] != symbols[position + 1] {
                var swapped = symbols
                swapped.swapAt(position, position + 1)
                swaps += 1
                if (try? ShareCode(parsing: String(swapped))) == nil { caught += 1 }
            }
        }
        #expect(Double(caught) / Double(swaps) > 0.95)
    }

    @Test func rejectsBadInput() {
        #expect(throws: ShareCodeError.self) { try ShareCode(parsing: "") }
        #expect(throws: ShareCodeError.self) { try ShareCode(parsing: "ABCD-EFG") }
        #expect(throws: ShareCodeError.self) { try ShareCode(parsing: "ABCD-EFGHJ") }
        #expect(throws: ShareCodeError.self) { try ShareCode(parsing: "UUUU-UUUU") }
        #expect(throws: ShareCodeError.self) { try ShareCode(parsing: "AB*D-EFGH") }
        #expect(throws: ShareCodeError.self) { try ShareCode(parsing: "ÄBCD-EFGH") }
    }

    @Test func codableUsesTheRawForm() throws {
        let code = ShareCode(payload: [1, 2, 3, 4, 5, 6, 7])
        #expect(code.displayForm.count == 9)
        let json = try JSONEncoder().encode(code)
        #expect(String(decoding: json, as: UTF8.self) == "\"\(code.rawValue)\"")
        #expect(try JSONDecoder().decode(ShareCode.self, from: json) == code)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(ShareCode.self, from: Data("\"0000-0001\"".utf8)) }
    }
}
