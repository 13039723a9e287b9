import DriftCore
import Foundation
import Testing

@Suite struct PasswordTests {
    let hasher = Fixtures.hasher

    @Test func hashVerifiesOnlyTheRightPassword() throws {
        let hash = try hasher.hash("correct horse")
        #expect(hash.algorithm == "pbkdf2-sha256")
        #expect(hash.iterations == 1_000)
        #expect(hash.salt.count == 16)
        #expect(hash.derivedKey.count == 32)
        #expect(hasher.verify("correct horse", against: hash))
        #expect(!hasher.verify("correct horse ", against: hash))
        #expect(!hasher.verify("Correct horse", against: hash))
        #expect(!hasher.verify("", against: hash))
    }

    @Test func saltsArePerHash() throws {
        let first = try hasher.hash("same")
        let second = try hasher.hash("same")
        #expect(first.salt != second.salt)
        #expect(first.derivedKey != second.derivedKey)
    }

    @Test func matchesAnIndependentPBKDF2Vector() throws {
        // Python: hashlib.pbkdf2_hmac('sha256', b'passwd', b'saltsaltsaltsalt', 1000, 32).hex()
        let stored = try PasswordHash(
            iterations: 1_000, salt: Array("saltsaltsaltsalt".utf8),
            derivedKey: Self.hex("9f83c0eca6b243c1fe298963a760e5ff7f013b75211262dfae0b2e944a5dc6c1"))
        #expect(hasher.verify("passwd", against: stored))
        #expect(!hasher.verify("passwe", against: stored))
    }

    @Test func normalisesUnicodeBeforeHashing() throws {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        let hash = try hasher.hash(composed)
        #expect(hasher.verify(decomposed, against: hash))
    }

    @Test func rejectsEmptyAndOverlongPasswordsWithoutEchoing() {
        #expect(throws: DomainValidationError.self) { try hasher.hash("") }
        let long = String(repeating: "secret", count: 30)
        do {
            _ = try hasher.hash(long)
            Issue.record("expected an error")
        } catch {
            #expect(!error.description.contains("secret"))
        }
    }

    @Test func storedFormRoundTripsAndHidesTheKey() throws {
        let hash = try hasher.hash("tide")
        let json = try JSONEncoder().encode(hash)
        let decoded = try JSONDecoder().decode(PasswordHash.self, from: json)
        #expect(decoded == hash)
        #expect(hasher.verify("tide", against: decoded))
        #expect(hash.description == "PasswordHash(pbkdf2-sha256, 1000 iterations)")
        #expect(!String(decoding: json, as: UTF8.self).contains("tide"))
        // Old hashes keep their own iteration count when the default changes.
        #expect(PasswordHasher(iterations: 5_000).verify("tide", against: hash))
    }

    @Test func rejectsCorruptStoredHashes() {
        #expect(throws: DomainValidationError.self) {
            try PasswordHash(algorithm: "md5", iterations: 1, salt: [UInt8](repeating: 0, count: 16), derivedKey: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: DomainValidationError.self) {
            try PasswordHash(iterations: 0, salt: [UInt8](repeating: 0, count: 16), derivedKey: [UInt8](repeating: 0, count: 32))
        }
        #expect(throws: DomainValidationError.self) {
            try PasswordHash(iterations: 10, salt: [1, 2], derivedKey: [UInt8](repeating: 0, count: 32))
        }
    }

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
