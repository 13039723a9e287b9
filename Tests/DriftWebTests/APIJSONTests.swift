@testable import DriftDaemon
import Foundation
import Testing

@Suite("API JSON style")
struct APIJSONTests {
    @Test("instants are ISO 8601 UTC with milliseconds, the same as Foundation's formatter")
    func isoMatchesFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        var generator = SystemRandomNumberGenerator()
        let fixed: [Double] = [0, -1, -86_400.001, 951_782_400, 1_709_164_800.999, 4_102_444_799.5, -2_208_988_800]
        let random = (0..<2000).map { _ in Double(Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &generator)) / 1000 }
        for seconds in fixed + random {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(APIJSON.iso(date) == formatter.string(from: date), "at \(seconds)")
        }
    }

    @Test("JSON text escapes quotes, backslashes and control characters")
    func escaping() throws {
        let value = JSONValue.object(["a\"b": .string("line\nbreak\u{1}\\ \u{2028}"), "n": .number(1.5), "i": .number(3), "z": .null])
        let parsed = try JSONSerialization.jsonObject(with: Data(value.text.utf8)) as? [String: Any]
        #expect(parsed?["a\"b"] as? String == "line\nbreak\u{1}\\ \u{2028}")
        #expect(value.text.hasPrefix("{\"a\\\"b\":"))
        #expect(value.text.contains("\"i\":3"))
    }
}
