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

    @Test func fiveAttemptsPerVisitorPerBottleInFiveMinutes() {
        var limiter = PasswordRateLimiter()
        var clock = TestClock("2024-06-01T12:00:00Z")
        for _ in 0..<5 {
            #expect(limiter.admit(visitor: visitor(1), bottle: bottle, now: clock.now) == .allowed)
            clock.advance(10)
        }
        // Sixth within the window: refused until the first attempt is 5 min old.
        #expect(limiter.admit(visitor: visitor(1), bottle: bottle, now: clock.now) == .limited(scope: .visitor, retryAfter: 250))
        // Other bottles and other visitors are not affected.
        #expect(limiter.admit(visitor: visitor(1), bottle: otherBottle, now: clock.now) == .allowed)
        #expect(limiter.admit(visitor: visitor(2), bottle: bottle, now: clock.now) == .allowed)
        // Refused attempts do not extend the lock-out.
        clock.advance(249)
        #expect(limiter.admit(visitor: visitor(1), bottle: bottle, now: clock.now) == .limited(scope: .visitor, retryAfter: 1))
        clock.advance(1)
        #expect(limiter.admit(visitor: visitor(1), bottle: bottle, now: clock.now) == .allowed)
    }

    @Test func twentyAttemptsPerBottleAcrossVisitors() {
        var limiter = PasswordRateLimiter()
        let now = Fixtures.date("2024-06-01T12:00:00Z")
        for index in 0..<20 {
            #expect(limiter.admit(visitor: visitor(UInt64(index / 4)), bottle: bottle, now: now) == .allowed)
        }
        #expect(limiter.admit(visitor: visitor(50), bottle: bottle, now: now) == .limited(scope: .bottle, retryAfter: 300))
        #expect(limiter.admit(visitor: visitor(50), bottle: otherBottle, now: now) == .allowed)
    }

    @Test func boxWideLimitCapsTokenMinting() {
        var limiter = PasswordRateLimiter(policy: .init(perBox: .init(attempts: 6, window: 60)))
        let now = Fixtures.date("2024-06-01T12:00:00Z")
        for index in 0..<6 {
            #expect(limiter.admit(visitor: visitor(UInt64(index)), bottle: Fixtures.bottleID(UInt64(index)), now: now) == .allowed)
        }
        #expect(limiter.admit(visitor: visitor(77), bottle: Fixtures.bottleID(77), now: now) == .limited(scope: .box, retryAfter: 60))
        #expect(limiter.admit(visitor: visitor(77), bottle: Fixtures.bottleID(77), now: now.addingTimeInterval(60)) == .allowed)
    }

    @Test func memoryIsReleasedAfterTheWindow() {
        var limiter = PasswordRateLimiter()
        let now = Fixtures.date("2024-06-01T12:00:00Z")
        for index in 0..<10 {
            _ = limiter.admit(visitor: visitor(UInt64(index)), bottle: bottle, now: now)
        }
        #expect(limiter.trackedAttempts == 10)
        limiter.prune(now: now.addingTimeInterval(301))
        #expect(limiter.trackedAttempts == 0)
        #expect(limiter == PasswordRateLimiter())
    }
}
