import DriftCore
import Foundation
import TestSupport
import Testing

@Suite struct IdentityTests {
    @Test func deviceTokenRoundTripsAsBase64URL() throws {
        let token = DeviceToken.generate()
        #expect(token.encoded.count == 43)
        #expect(!token.encoded.contains("=") && !token.encoded.contains("+") && !token.encoded.contains("/"))
        #expect(try DeviceToken(encoded: token.encoded) == token)
        #expect(DeviceToken.generate() != token)
    }

    @Test func badTokensAreRejectedWithoutEchoingThem() {
        for bad in ["", "short", String(repeating: "A", count: 42), String(repeating: "A", count: 44),
                    String(repeating: "*", count: 43)] {
            #expect(throws: DomainValidationError.self) { try DeviceToken(encoded: bad) }
        }
        do {
            _ = try DeviceToken(encoded: String(repeating: "!", count: 43))
        } catch {
            #expect(!error.description.contains("!!!"))
        }
    }

    @Test func tokenHashIsStableAndRoundTrips() throws {
        let token = Fixtures.visitorToken
        #expect(token.hash == token.hash)
        #expect(token.hash.hex.count == 64)
        #expect(try TokenHash(hex: token.hash.hex) == token.hash)
        #expect(token.hash.matches(token.hash))
        #expect(!token.hash.matches(Fixtures.creatorToken.hash))
        let json = try JSONEncoder().encode(token.hash)
        #expect(try JSONDecoder().decode(TokenHash.self, from: json) == token.hash)
        #expect(throws: DomainValidationError.self) { try TokenHash(hex: "zz") }
    }

    @Test func participantIDIsStableWithinABottleAndUnlinkableAcross() {
        let first = Fixtures.bottleID(1)
        let second = Fixtures.bottleID(2)
        let a1 = Fixtures.participant(in: first)
        let a1again = Fixtures.participant(in: first)
        let a2 = Fixtures.participant(in: second)
        let b1 = Fixtures.participant(Fixtures.creatorToken, in: first)
        #expect(a1 == a1again)
        #expect(a1.avatar == a1again.avatar)
        #expect(a1 != a2, "same token in two bottles must give different ids")
        #expect(a1 != b1)
        // No shared bytes pattern: ids of the same token in different bottles differ in most bytes.
        let sameBytes = zip(a1.bytes, a2.bytes).filter { $0 == $1 }.count
        #expect(sameBytes < 6)
        // A different box secret gives a different id for the same token and bottle.
        var generator = SeededGenerator(seed: 99)
        let otherSecret = BoxSecret.generate(using: &generator)
        #expect(ParticipantID(visitor: Fixtures.visitorToken.hash, bottle: first, secret: otherSecret) != a1)
    }

    @Test func participantIDRoundTrips() throws {
        let id = Fixtures.participant(in: Fixtures.bottleID())
        #expect(id.hex.count == 32)
        #expect(try ParticipantID(hex: id.hex) == id)
        let json = try JSONEncoder().encode(id)
        #expect(try JSONDecoder().decode(ParticipantID.self, from: json) == id)
    }

    @Test func avatarsAreSymmetricNonEmptyAndVaried() {
        var hues = Set<Int>()
        var patterns = Set<UInt32>()
        for seed in 0..<200 {
            var generator = SeededGenerator(seed: UInt64(seed))
            let token = DeviceToken.generate(using: &generator)
            let avatar = Fixtures.participant(token, in: Fixtures.bottleID()).avatar
            #expect((0..<360).contains(avatar.hue))
            #expect(avatar.pattern != 0)
            #expect(avatar.pattern < 1 << 25)
            for row in 0..<5 {
                for column in 0..<2 {
                    #expect(avatar.isFilled(row: row, column: column) == avatar.isFilled(row: row, column: 4 - column))
                }
            }
            #expect(avatar.cssColor == "hsl(\(avatar.hue), 65%, 45%)")
            hues.insert(avatar.hue)
            patterns.insert(avatar.pattern)
        }
        #expect(hues.count > 100)
        #expect(patterns.count > 150)
    }

    @Test func boxSecretNeverPrints() throws {
        let secret = Fixtures.secret
        #expect(secret.description == "BoxSecret(redacted)")
        #expect(try BoxSecret(bytes: secret.rawBytes).rawBytes == secret.rawBytes)
        #expect(throws: DomainValidationError.self) { try BoxSecret(bytes: [1, 2, 3]) }
    }
}
