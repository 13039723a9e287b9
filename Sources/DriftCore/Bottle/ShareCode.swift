/// A short, human-friendly code that reaches a bottle (also a locked one), e.g. `7KQ4-M2XC`.
///
/// Eight symbols of Crockford's base-32 alphabet (`0–9`, `A–Z` without `I L O U`):
/// seven random symbols (35 bits, 34 billion codes) and a Luhn mod 32 check symbol
/// that catches every single mistyped symbol and most swaps of neighbours.
/// ``init(parsing:)`` accepts what people type: any case, dashes and spaces, and the
/// look-alikes `O`→`0`, `I`/`L`→`1`. Uniqueness among live bottles is the store's job.
public struct ShareCode: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The Crockford base-32 alphabet, in value order.
    public static let alphabet: [Character] = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    /// Number of random symbols before the check symbol.
    public static let payloadLength = 7

    /// The eight symbols without separator, e.g. `7KQ4M2XC`; what the store indexes.
    public let rawValue: String

    /// Parses and validates user input.
    /// - Throws: ``ShareCodeError`` when a symbol is not in the alphabet, the length is
    ///   not eight symbols, or the check symbol does not match.
    public init(parsing input: String) throws(ShareCodeError) {
        var values: [Int] = []
        for character in input.uppercased() {
            switch character {
            case "-", " ", "\t": continue
            case "O": values.append(0)
            case "I", "L": values.append(1)
            default:
                guard let value = ShareCode.value(of: character) else {
                    throw ShareCodeError.invalidSymbol(character, input: String(input.prefix(32)))
                }
                values.append(value)
            }
        }
        guard values.count == ShareCode.payloadLength + 1 else {
            throw ShareCodeError.wrongLength(values.count, input: String(input.prefix(32)))
        }
        guard ShareCode.checkValue(for: Array(values.dropLast())) == values.last else {
            throw ShareCodeError.checkFailed(input: String(input.prefix(32)))
        }
        rawValue = String(values.map { ShareCode.alphabet[$0] })
    }

    /// Builds a code from seven symbol values (0–31 each), appending the check symbol.
    public init(payload: [Int]) {
        precondition(payload.count == ShareCode.payloadLength && payload.allSatisfy { (0..<32).contains($0) },
                     "share code payload must be 7 values in 0..<32")
        let all = payload + [ShareCode.checkValue(for: payload)]
        rawValue = String(all.map { ShareCode.alphabet[$0] })
    }

    /// A random code.
    public static func random(using generator: inout some RandomNumberGenerator) -> ShareCode {
        ShareCode(payload: (0..<payloadLength).map { _ in Int.random(in: 0..<32, using: &generator) })
    }

    /// A random code from the system's secure random source.
    public static func random() -> ShareCode {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// Grouped for display and printing: `7KQ4-M2XC`.
    public var displayForm: String {
        String(rawValue.prefix(4)) + "-" + String(rawValue.suffix(4))
    }

    public var description: String { displayForm }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        do { self = try ShareCode(parsing: raw) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(error)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    static func value(of character: Character) -> Int? {
        alphabet.firstIndex(of: character)
    }

    /// Luhn mod N (N = 32) check value for `values`.
    static func checkValue(for values: [Int]) -> Int {
        var factor = 2
        var sum = 0
        for value in values.reversed() {
            var addend = factor * value
            factor = factor == 2 ? 1 : 2
            addend = addend / 32 + addend % 32
            sum += addend
        }
        return (32 - sum % 32) % 32
    }
}

/// Why a typed share code was refused.
public enum ShareCodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A character outside the alphabet (after look-alike mapping), e.g. `U` or `*`.
    case invalidSymbol(Character, input: String)
    /// Not eight symbols once separators are removed.
    case wrongLength(Int, input: String)
    /// The check symbol does not match: a typo.
    case checkFailed(input: String)

    public var description: String {
        switch self {
        case .invalidSymbol(let symbol, let input): "share code '\(input)': '\(symbol)' is not a share code symbol"
        case .wrongLength(let count, let input): "share code '\(input)': has \(count) symbols, expected 8"
        case .checkFailed(let input): "share code '\(input)': check symbol does not match (typo?)"
        }
    }
}
