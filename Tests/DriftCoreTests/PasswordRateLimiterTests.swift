import DriftCore
import Foundation
import TestSupport
import Testing

@Suite struct PasswordRateLimiterTests {
    let bottle = Fixtures.bottleID(1)
    let otherBottle = Fixtures.bottleID(2)

    func visitor(_ seed: UInt64) -> TokenHash {
        var generator = SeededGenerator(seed: 1_000 + seed)
        return DeviceToken.generate(using: &generator).hash
    }

    /// One wrong guess: admitted, then reported as a failure.
    func guessWrong(_ limiter: inout PasswordRateLimiter, _ who: TokenHash, from client: String?, on bottle: BottleID, at now: Date) -> PasswordRateLimiter.Decision {
        let decision = limiter.admit(visitor: who, client: client, bottle: bottle, now: now)
        if decision == .allowed { limiter.recordFailure(visitor: who, client: client, bottle: bottle, now: now) }
        return decision
    }

    @Test func fiveAttemptsPerVisitorPerBottleInFiveMinutes() {
        var limiter = PasswordRateLimiter()
        var clock = TestClock("2024-06-01T12:00:00Z")
        for _ in 0..<5 {
            #expect(guessWrong(&limiter, visitor(1), from: "10.42.0.11", on: bottle, at: clock.now) == .allowed)
            clock.advance(10)
        }
        // Sixth within the window: refused until the first attempt is 5 min old.
        #expect(limiter.admit(visitor: visitor(1), client: "10.42.0.11", bottle: bottle, now: clock.now) == .limited(scope: .visitor, retryAfter: 250))
        // Other bottles and other visitors are not affected.
        #expect(limiter.admit(visitor: visitor(1), client: "10.42.0.11", bottle: otherBottle, now: clock.now) == .allowed)
        #expect(limiter.admit(visitor: visitor(2), client: "10.42.0.11", bottle: bottle, now: clock.now) == .allowed)
        // Refused attempts do not extend the lock-out.
        clock.advance(249)
        #expect(limiter.admit(visitor: visitor(1), bottle: bottle, now: clock.now) == .limited(scope: .visitor, retryAfter: 1))
        clock.advance(1)
        #expect(limiter.admit(visitor: visitor(1), bottle: bottle, now: clock.now) == .allowed)
    }

    /// The reproduction of the lock-out: 40 wrong guesses from 8 fresh tokens used to make the
    /// right password from a fresh token wait ~5 minutes (429). A visitor who never guessed
    /// wrong is bound only by their own limit, from the attacker's address or any other.
    @Test func failuresOfOthersNeverLockOutAnHonestVisitor() {
        var limiter = PasswordRateLimiter()
        let now = Fixtures.date("2024-06-01T12:00:00Z")
        for token in 0..<8 {
            for _ in 0..<5 { _ = guessWrong(&limiter, visitor(UInt64(token)), from: "10.42.0.66", on: bottle, at: now) }
        }
        #expect(limiter.admit(visitor: visitor(100), client: "10.42.0.12", bottle: bottle, now: now) == .allowed)
        #expect(limiter.admit(visitor: visitor(101), client: "10.42.0.66", bottle: bottle, now: now) == .allowed)
        #expect(limiter.admit(visitor: visitor(102), client: nil, bottle: bottle, now: now) == .allowed)
    }

    /// The other side: an attacker minting a token per guess from one address gets each new
    /// token's first guess, and no second one once the address has 10 wrong guesses.
    @Test func guessersAreStoppedPerAddress() {
        var limiter = PasswordRateLimiter()
        let now = Fixtures.date("2024-06-01T12:00:00Z")
        for token in 0..<10 {
            #expect(guessWrong(&limiter, visitor(UInt64(token)), from: "10.42.0.66", on: bottle, at: now) == .allowed)
        }
        #expect(guessWrong(&limiter, visitor(50), from: "10.42.0.66", on: bottle, at: now) == .allowed)
        #expect(limiter.admit(visitor: visitor(50), client: "10.42.0.66", bottle: bottle, now: now) == .limited(scope: .address, retryAfter: 300))
        // Other addresses and other bottles are not held up.
        #expect(limiter.admit(visitor: visitor(50), client: "10.42.0.66", bottle: otherBottle, now: now) == .allowed)
        #expect(limiter.admit(visitor: visitor(60), client: "10.42.0.13", bottle: bottle, now: now) == .allowed)
    }

    @Test func twentyWrongGuessesPerBottleStopGuessersFromEveryAddress() {
        var limiter = PasswordRateLimiter()
        let now = Fixtures.date("2024-06-01T12:00:00Z")
        for index in 0..<20 {
            _ = guessWrong(&limiter, visitor(UInt64(index)), from: "10.42.1.\(index)", on: bottle, at: now)
        }
        #expect(limiter.admit(visitor: visitor(3), client: "10.42.1.3", bottle: bottle, now: now) == .limited(scope: .bottle, retryAfter: 300))
        #expect(limiter.admit(visitor: visitor(3), client: "10.42.1.3", bottle: otherBottle, now: now) == .allowed)
        // A visitor who never guessed wrong here still gets their try at once.
        #expect(limiter.admit(visitor: visitor(99), client: "10.42.1.99", bottle: bottle, now: now) == .allowed)
    }

    @Test func boxWideLimitCapsGuessingAcrossBottles() {
        var limiter = PasswordRateLimiter(policy: .init(perBox: .init(attempts: 6, window: 60)))
        let now = Fixtures.date("2024-06-01T12:00:00Z")
        for index in 0..<6 {
            _ = guessWrong(&limiter, visitor(UInt64(index)), from: "10.42.2.\(index)", on: Fixtures.bottleID(UInt64(10 + index)), at: now)
        }
        #expect(limiter.admit(visitor: visitor(0), client: "10.42.2.0", bottle: Fixtures.bottleID(10), now: now) == .limited(scope: .box, retryAfter: 60))
        #expect(limiter.admit(visitor: visitor(0), client: "10.42.2.0", bottle: Fixtures.bottleID(10), now: now.addingTimeInterval(60)) == .allowed)
        #expect(limiter.admit(visitor: visitor(77), client: "10.42.2.77", bottle: Fixtures.bottleID(10), now: now) == .allowed)
    }

    @Test func memoryIsReleasedAfterTheWindow() {
        var limiter = PasswordRateLimiter()
        let now = Fixtures.date("2024-06-01T12:00:00Z")
        for index in 0..<10 {
            _ = guessWrong(&limiter, visitor(UInt64(index)), from: "10.42.0.\(index)", on: bottle, at: now)
        }
        #expect(limiter.trackedAttempts == 10 && limiter.trackedFailures == 10)
        limiter.prune(now: now.addingTimeInterval(301))
        #expect(limiter.trackedAttempts == 0 && limiter.trackedFailures == 0)
        #expect(limiter == PasswordRateLimiter())
    }
}
