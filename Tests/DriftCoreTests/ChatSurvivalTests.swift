import DriftCore
import Foundation
import Testing

@Suite struct ChatSurvivalTests {
    let bottleID = Fixtures.bottleID()
    var alice: ParticipantID { Fixtures.participant(Fixtures.visitorToken, in: bottleID) }
    var bob: ParticipantID { Fixtures.participant(Fixtures.creatorToken, in: bottleID) }
    let start = "2024-06-01T12:00:00Z"
    let farExpiry = Fixtures.date("2024-06-08T12:00:00Z")

    func open(_ clock: TestClock, oneShot: Bool = false, policy: SurvivalPolicy = SurvivalPolicy(), expiry: Date? = nil) -> ChatSurvival {
        ChatSurvival.firstOpen(by: alice, at: clock.now, hardExpiresAt: expiry ?? farExpiry, isOneShot: oneShot, policy: policy)
    }

    @Test func lastLeaveStartsThirtySecondCountdownThenExpiry() {
        var clock = TestClock(start)
        var chat = open(clock)
        #expect(chat.phase == .alive)
        clock.advance(600)
        let leave = chat.leave(alice, at: clock.now)
        #expect(leave == [.transition(.countdownStarted, at: clock.now)])
        #expect(chat.phase == .countingDown(deadline: clock.now.addingTimeInterval(30)))
        #expect(chat.nextDeadline == clock.now.addingTimeInterval(30))
        let left = clock.now
        clock.advance(29.999)
        #expect(chat.tick(at: clock.now) == [])
        clock.advance(0.001)
        #expect(chat.tick(at: clock.now) == [.transition(.countdownEnded, at: left.addingTimeInterval(30))])
        #expect(chat.isExpired)
        #expect(throws: SurvivalError.expired) { try chat.enter(alice, at: clock.now) }
        #expect(chat.tick(at: clock.now.addingTimeInterval(100)) == [])
    }

    @Test func presenceKeepsTheChatAliveIndefinitely() throws {
        var clock = TestClock(start)
        var chat = open(clock)
        for _ in 0..<10 {
            clock.advance(3_600)  // ten hours, far beyond the 1 h lifespan
            #expect(chat.tick(at: clock.now) == [])
        }
        _ = try chat.enter(bob, at: clock.now)
        #expect(chat.leave(alice, at: clock.now) == [], "bob is still inside")
        #expect(chat.phase == .alive)
        #expect(chat.lifespanEndsAt == Fixtures.date(start).addingTimeInterval(3_600), "lifespan renews only when the last one leaves")
    }

    @Test func reentryDuringCountdownRescuesAndMakesAKeeper() throws {
        var clock = TestClock(start)
        var chat = open(clock)
        clock.advance(60)
        _ = chat.leave(alice, at: clock.now)
        clock.advance(20)
        let actions = try chat.enter(bob, at: clock.now)
        let claim = KeeperClaim(participant: bob, claimedAt: clock.now)
        #expect(actions == [.transition(.reentered, at: clock.now), .keeperChanged(claim)])
        #expect(chat.phase == .alive)
        #expect(chat.keeper == claim)
        // Now the keeper's claim holds the empty chat for the lifespan after the last leave.
        clock.advance(100)
        #expect(chat.leave(bob, at: clock.now) == [])
        let leftAt = clock.now
        #expect(chat.lifespanEndsAt == leftAt.addingTimeInterval(3_600))
        #expect(chat.nextDeadline == leftAt.addingTimeInterval(3_600))
        clock.advance(3_599)
        #expect(chat.tick(at: clock.now) == [])
        clock.advance(1)
        #expect(chat.tick(at: clock.now) == [.keeperChanged(nil), .transition(.countdownStarted, at: leftAt.addingTimeInterval(3_600))])
        clock.advance(30)
        #expect(chat.tick(at: clock.now) == [.transition(.countdownEnded, at: leftAt.addingTimeInterval(3_630))])
    }

    @Test func keepAliveClaimStopsTheCountdown() throws {
        var clock = TestClock(start)
        var chat = open(clock)
        clock.advance(10)
        _ = chat.leave(alice, at: clock.now)
        clock.advance(29)
        // Claimed with the box's button by a visitor who is not inside.
        let actions = try chat.claimKeepAlive(by: bob, at: clock.now)
        #expect(actions == [.transition(.keepAliveClaimed, at: clock.now), .keeperChanged(KeeperClaim(participant: bob, claimedAt: clock.now))])
        #expect(chat.lifespanEndsAt == clock.now.addingTimeInterval(3_600))
        clock.advance(3_599)
        #expect(chat.tick(at: clock.now) == [])
        #expect(!chat.isExpired)
    }

    @Test func claimWhileActiveHoldsAfterEveryoneLeaves() throws {
        var clock = TestClock(start)
        var chat = open(clock)
        #expect(try chat.claimKeepAlive(by: alice, at: clock.now) == [.keeperChanged(KeeperClaim(participant: alice, claimedAt: clock.now))])
        clock.advance(5)
        #expect(chat.leave(alice, at: clock.now) == [])
        #expect(chat.phase == .alive)
        // A later claim by someone else replaces the keeper.
        clock.advance(60)
        _ = try chat.claimKeepAlive(by: bob, at: clock.now)
        #expect(chat.keeper?.participant == bob)
    }

    @Test func configurableDurations() {
        var clock = TestClock(start)
        var chat = open(clock, policy: SurvivalPolicy(lifespan: 120, countdown: 5))
        _ = chat.leave(alice, at: clock.now)
        clock.advance(5)
        #expect(chat.tick(at: clock.now) == [.transition(.countdownEnded, at: clock.now)])
    }

    @Test func oneShotExpiresWhenItsReaderLeaves() throws {
        var clock = TestClock(start)
        var chat = open(clock, oneShot: true)
        #expect(throws: SurvivalError.oneShot) { try chat.claimKeepAlive(by: alice, at: clock.now) }
        clock.advance(42)
        #expect(chat.leave(alice, at: clock.now) == [.transition(.oneShotConsumed, at: clock.now)])
        #expect(chat.phase == .expired(at: clock.now, reason: .oneShotConsumed))
    }

    @Test func hardExpiryEndsEvenAFullChat() throws {
        var clock = TestClock(start)
        let expiry = Fixtures.date(start).addingTimeInterval(900)
        var chat = open(clock, expiry: expiry)
        _ = try chat.enter(bob, at: clock.now)
        clock.advance(899)
        #expect(chat.tick(at: clock.now) == [])
        clock.advance(1)
        #expect(chat.tick(at: clock.now) == [.transition(.hardExpiry, at: expiry)])
        // Hard expiry also cuts a countdown short.
        var dying = open(TestClock(start), expiry: expiry)
        _ = dying.leave(alice, at: expiry.addingTimeInterval(-10))
        #expect(dying.tick(at: expiry.addingTimeInterval(5)) == [.transition(.hardExpiry, at: expiry)])
    }

    @Test func restartEndsCountdownsThatRanOutWhileDown() throws {
        var clock = TestClock(start)
        var chat = open(clock)
        clock.advance(100)
        _ = chat.leave(alice, at: clock.now)
        let deadline = clock.now.addingTimeInterval(30)
        // Persist, "crash", load 10 minutes later.
        let stored = try JSONEncoder().encode(chat)
        var loaded = try JSONDecoder().decode(ChatSurvival.self, from: stored)
        #expect(loaded == chat)
        clock.advance(600)
        #expect(loaded.resume(at: clock.now) == [.transition(.countdownEnded, at: deadline)])
    }

    @Test func restartTreatsPeopleInsideAsGoneSinceLastSeen() throws {
        var clock = TestClock(start)
        var chat = open(clock)
        clock.advance(300)
        #expect(chat.tick(at: clock.now) == [])  // processor tick refreshes presenceSeenAt
        let lastSeen = clock.now
        #expect(chat.presenceSeenAt == lastSeen)
        var loaded = try JSONDecoder().decode(ChatSurvival.self, from: JSONEncoder().encode(chat))
        clock.advance(20)  // quick restart: countdown still running
        #expect(loaded.resume(at: clock.now) == [.transition(.countdownStarted, at: lastSeen)])
        #expect(loaded.phase == .countingDown(deadline: lastSeen.addingTimeInterval(30)))
        _ = try loaded.enter(alice, at: clock.now)
        #expect(loaded.phase == .alive)

        var slow = try JSONDecoder().decode(ChatSurvival.self, from: JSONEncoder().encode(chat))
        #expect(slow.resume(at: lastSeen.addingTimeInterval(3_600)) == [
            .transition(.countdownStarted, at: lastSeen), .transition(.countdownEnded, at: lastSeen.addingTimeInterval(30)),
        ])
    }

    @Test func restartHonoursAKeeperHold() throws {
        var clock = TestClock(start)
        var chat = open(clock)
        _ = try chat.claimKeepAlive(by: alice, at: clock.now)
        clock.advance(60)
        _ = chat.leave(alice, at: clock.now)
        let holdEnds = clock.now.addingTimeInterval(3_600)
        var early = chat
        #expect(early.resume(at: clock.now.addingTimeInterval(600)) == [])
        #expect(early.phase == .alive)
        var late = chat
        #expect(late.resume(at: holdEnds.addingTimeInterval(3_600)) == [
            .keeperChanged(nil), .transition(.countdownStarted, at: holdEnds), .transition(.countdownEnded, at: holdEnds.addingTimeInterval(30)),
        ])
    }

    @Test func actionsDriveTheBottleThroughValidTransitions() throws {
        var bottle = try Fixtures.bottle()
        var clock = TestClock("2024-06-01T12:00:00Z")
        try bottle.recordFirstOpen(by: alice, hostPosition: Fixtures.berlin, at: clock.now)
        var chat = ChatSurvival.firstOpen(by: alice, at: clock.now, hardExpiresAt: bottle.expiresAt, isOneShot: false)
        func apply(_ actions: [ChatSurvival.Action]) throws {
            for case .transition(let trigger, let at) in actions { try bottle.apply(trigger, at: at) }
        }
        clock.advance(30)
        try apply(chat.leave(alice, at: clock.now))
        #expect(bottle.state == .dying)
        clock.advance(10)
        try apply(chat.enter(bob, at: clock.now))
        #expect(bottle.state == .active)
        clock.advance(10)
        try apply(chat.leave(bob, at: clock.now))
        #expect(bottle.state == .active, "bob is the keeper now")
        clock.advance(3_600)
        try apply(chat.tick(at: clock.now))
        #expect(bottle.state == .dying)
        clock.advance(30)
        try apply(chat.tick(at: clock.now))
        #expect(bottle.state == .expired)
    }
}
