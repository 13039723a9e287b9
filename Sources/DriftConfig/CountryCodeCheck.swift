import DriftCore
import Foundation

/// Checks `box.country` against the one list of country codes (DriftCore's
/// `CountryCode`, which the participant labels use too), with hints for the
/// common mistakes.
enum CountryCodeCheck {
    /// Common mistakes: the UK is `GB`, lowercase codes, three-letter codes.
    static func problem(with code: String) -> ValueProblem? {
        if isKnown(code) { return nil }
        if isKnown(code.uppercased()) {
            return ValueProblem("country codes are uppercase, found `\(code)`", hint: "did you mean `\(code.uppercased())`?")
        }
        if code.uppercased() == "UK" {
            return ValueProblem("`UK` is not an ISO 3166-1 code", hint: "did you mean `GB`?")
        }
        return ValueProblem("`\(code)` is not an ISO 3166-1 alpha-2 country code (two letters, e.g. `DE`, `US`)")
    }

    /// Whether `code`, exactly as written, is an accepted code.
    private static func isKnown(_ code: String) -> Bool {
        guard code == code.uppercased(), code == code.trimmingCharacters(in: .whitespaces) else { return false }
        return (try? DriftCore.CountryCode(code)) != nil
    }
}
