import DriftCore
import Foundation
import TestSupport
import Testing

/// Visitor proofs at open (password, presence), one-shot, and the openable verdict.
@Suite struct OpeningTests {
    let hasher = Fixtures.hasher
    let nowISO = "2024-06-01T12:00:00Z"

    func passwordBottle(_ extra: [BottleCondition] = [], oneShot: Bool = false) throws -> Bottle {
        try Fixtures.bottle([BottleCondition(.password(try hasher.hash("kelp")), hint: "what floats")] + extra, oneShot: oneShot)
    }

    func attempt(_ bottle: Bottle, password: String? = nil, presence: PresenceProof? = nil, token: DeviceToken = Fixtures.visitorToken) -> OpenAttempt {
        OpenAttempt(visitor: token.hash, participant: Fixtures.participant(token, in: bottle.id), password: password, presence: presence)
    }

    @Test func passwordIsAVisitorProofNotAnAmbientCondition() throws {
        let bottle = try passwordBottle()
        let evaluation = ConditionEvaluator.evaluate(bottle, in: Fixtures.context(nowISO))
        let password = try #require(evaluation.reports.first { $0.kind == .password })
        #expect(password.outcome == .unknown(reason: "asked when you open it"))
        #expect(password.summary == "needs a password")
        #expect(password.hint == "what floats")
        #expect(evaluation.isOpenable, "visitor proofs do not block openable")
    }

    @Test func passwordAtOpen() throws {
        var limiter = PasswordRateLimiter()
        let context = Fixtures.context(nowISO)
        var bottle = try passwordBottle()
        try bottle.apply(.conditionsMet, at: context.now)

        let missing = BottleOpener.check(bottle, in: context, attempt: attempt(bottle), hasher: hasher, limiter: &limiter)
        #expect(missing.verdict == .denied)
        #expect(missing.reasons == ["enter the password"])

        let wrong = BottleOpener.check(bottle, in: context, attempt: attempt(bottle, password: "sand"), hasher: hasher, limiter: &limiter)
        #expect(wrong.reasons == ["wrong password"])

        let right = BottleOpener.check(bottle, in: context, attempt: attempt(bottle, password: "kelp"), hasher: hasher, limiter: &limiter)
        #expect(right.verdict == .open(isFirstOpen: true))
        #expect(right.reports.first { $0.kind == .password }?.outcome == .satisfied)
        #expect(!right.reports.contains { $0.summary.contains("kelp") })
    }

    @Test func passwordAttemptsAreRateLimited() throws {
        var limiter = PasswordRateLimiter()
        var clock = TestClock(nowISO)
        var bottle = try passwordBottle()
        try bottle.apply(.conditionsMet, at: clock.now)
        for _ in 0..<5 {
            var context = Fixtures.context(nowISO)
            context.now = clock.now
            #expect(BottleOpener.check(bottle, in: context, attempt: attempt(bottle, password: "nope"), hasher: hasher, limiter: &limiter).reasons == ["wrong password"])
            clock.advance(1)
        }
        var context = Fixtures.context(nowISO)
        context.now = clock.now
        // Even the right password is refused while limited.
        let limited = BottleOpener.check(bottle, in: context, attempt: attempt(bottle, password: "kelp"), hasher: hasher, limiter: &limiter)
        #expect(limited.reasons == ["too many attempts; try again in 4 min"])
        context.now = clock.now.addingTimeInterval(300)
        #expect(BottleOpener.check(bottle, in: context, attempt: attempt(bottle, password: "kelp"), hasher: hasher, limiter: &limiter).isOpen)
    }

    @Test func passwordIsNotTriedWhileOtherConditionsFail() throws {
        var limiter = PasswordRateLimiter()
        let bottle = try passwordBottle([BottleCondition(.delay(UnlockDelay(seconds: 86_400)))])
        let decision = BottleOpener.check(bottle, in: Fixtures.context(nowISO), attempt: attempt(bottle, password: "kelp"), hasher: hasher, limiter: &limiter)
        #expect(decision.verdict == .denied)
        #expect(decision.reports.first { $0.kind == .password }?.outcome == .unknown(reason: "checked once the other conditions hold"))
        #expect(limiter.trackedAttempts == 0)
    }

    @Test func presenceBoundToTheVisitorWhoAsked() throws {
        let context = Fixtures.context(nowISO)
        var bottle = try Fixtures.bottle([BottleCondition(.presence(PresenceCondition(withinSeconds: 30)))])
        try bottle.apply(.conditionsMet, at: context.now)
        var binder = PresenceBinder()
        var limiter = PasswordRateLimiter()
        let visitor = Fixtures.visitorToken
        let other = Fixtures.creatorToken

        // Presses nobody asked for prove nothing.
        #expect(binder.buttonPressed(at: context.now.addingTimeInterval(-30)) == nil)
        #expect(binder.buttonPressed(at: context.now.addingTimeInterval(-29)) == nil)
        #expect(binder.settle(now: context.now.addingTimeInterval(-20)) == nil)
        let none = BottleOpener.check(bottle, in: context, attempt: attempt(bottle), hasher: hasher, limiter: &limiter)
        #expect(none.reasons == ["ask for a presence check, then press the button on the box"])

        let request = try binder.request(visitor: visitor.hash, bottle: bottle.id, now: context.now.addingTimeInterval(-15))
        #expect(request.presses == 2)
        binder.buttonPressed(at: context.now.addingTimeInterval(-11))
        binder.buttonPressed(at: context.now.addingTimeInterval(-10))
        #expect(binder.settle(now: context.now.addingTimeInterval(-9)) == nil, "the burst has not ended yet")
        let pressed = binder.settle(now: context.now.addingTimeInterval(-7.5))
        let proof = try #require(pressed)
        #expect(proof.pressedAt == context.now.addingTimeInterval(-10))
        #expect(proof.visitor == visitor.hash)
        let ok = BottleOpener.check(bottle, in: context, attempt: attempt(bottle, presence: binder.proof(visitor: visitor.hash, bottle: bottle.id)),
                                    hasher: hasher, limiter: &limiter)
        #expect(ok.isOpen)
        // Someone else presenting that proof gets nothing.
        let stolen = BottleOpener.check(bottle, in: context, attempt: attempt(bottle, presence: proof, token: other), hasher: hasher, limiter: &limiter)
        #expect(stolen.verdict == .denied)
        // Too old a press.
        var later = context
        later.now = context.now.addingTimeInterval(25)
        let stale = BottleOpener.check(bottle, in: later, attempt: attempt(bottle, presence: proof), hasher: hasher, limiter: &limiter)
        #expect(stale.reasons == ["your button press was 35 s ago; it counts for 30 s"])
        // A box without a button: unknown.
        var buttonless = context
        buttonless.hasPresenceButton = false
        let unknown = BottleOpener.check(bottle, in: buttonless, attempt: attempt(bottle, presence: proof), hasher: hasher, limiter: &limiter)
        #expect(unknown.reports.first { $0.kind == .presence }?.outcome == .unknown(reason: "this box has no presence button"))
        #expect(ConditionEvaluator.evaluate(bottle, in: buttonless).reports.first { $0.kind == .presence }?.outcome
            == .unknown(reason: "this box has no presence button"))
    }

    /// Presses `count` times, a second apart, from `clock`'s time, and settles the burst.
    func press(_ binder: inout PresenceBinder, _ count: Int, clock: inout TestClock) -> PresenceProof? {
        var proof: PresenceProof?
        for _ in 0..<count {
            proof = binder.buttonPressed(at: clock.now) ?? proof
            clock.advance(1)
        }
        clock.advance(2)
        return binder.settle(now: clock.now) ?? proof
    }

    /// The race from the trust review: R asks first from anywhere, Q asks at the box and presses.
    /// With the oldest request served first, R's open succeeded and Q's was refused; now Q's
    /// page shows Q's own count, and Q's presses prove Q's presence only.
    @Test func aRequestFromElsewhereCannotTakeThePressesOfTheVisitorAtTheBox() throws {
        var binder = PresenceBinder()
        var clock = TestClock(nowISO)
        let bottle = Fixtures.bottleID()
        let remote = Fixtures.visitorToken.hash
        let here = Fixtures.creatorToken.hash
        let first = try binder.request(visitor: remote, bottle: bottle, now: clock.now)
        clock.advance(2)
        let second = try binder.request(visitor: here, bottle: bottle, now: clock.now)
        #expect(first.presses != second.presses)
        let proof = press(&binder, second.presses, clock: &clock)
        #expect(proof?.visitor == here)
        #expect(binder.proof(visitor: remote, bottle: bottle) == nil)
        #expect(binder.waiting(visitor: remote, bottle: bottle) != nil, "R still waits, and nobody at the box will press for R")
        // A single press (a passer-by) never proves anything, whoever waits.
        #expect(press(&binder, 1, clock: &clock) == nil)
    }

    @Test func twoHonestVisitorsInTurnEachGetTheirOwnProof() throws {
        var binder = PresenceBinder(requestLifetime: 60)
        var clock = TestClock(nowISO)
        let bottle = Fixtures.bottleID()
        let a = Fixtures.visitorToken.hash
        let b = Fixtures.creatorToken.hash
        let first = try binder.request(visitor: a, bottle: bottle, now: clock.now)
        #expect(press(&binder, first.presses, clock: &clock)?.visitor == a)
        let second = try binder.request(visitor: b, bottle: bottle, now: clock.now)
        #expect(second.presses == first.presses, "a count is free again once its request is proved")
        #expect(press(&binder, second.presses, clock: &clock)?.visitor == b)
        #expect(binder.pending.isEmpty)
        // A count nobody waits for proves nothing; requests expire.
        _ = try binder.request(visitor: a, bottle: bottle, now: clock.now)
        #expect(press(&binder, 5, clock: &clock) == nil)
        clock.advance(61)
        #expect(press(&binder, 2, clock: &clock) == nil)
        binder.forget(bottle: bottle)
        #expect(binder.proofs.isEmpty && binder.pending.isEmpty)
    }

    @Test func everyCountTakenRefusesNewRequestsUntilTheOldestEnds() throws {
        var binder = PresenceBinder(requestLifetime: 60, pressCodes: 2...3)
        var clock = TestClock(nowISO)
        let bottle = Fixtures.bottleID()
        var generator = SeededGenerator(seed: 42)
        let (a, b, c) = (Fixtures.visitorToken.hash, Fixtures.creatorToken.hash, DeviceToken.generate(using: &generator).hash)
        #expect(try binder.request(visitor: a, bottle: bottle, now: clock.now).presses == 2)
        clock.advance(10)
        #expect(try binder.request(visitor: b, bottle: bottle, now: clock.now).presses == 3)
        #expect(throws: PresenceBinder.Busy(retryAfter: 50)) { try binder.request(visitor: c, bottle: bottle, now: clock.now) }
        clock.advance(51)
        // A's request ended: its count is free again.
        #expect(try binder.request(visitor: c, bottle: bottle, now: clock.now).presses == 2)
        // The same visitor asking again keeps their count.
        #expect(try binder.request(visitor: b, bottle: bottle, now: clock.now).presses == 3)
        #expect(throws: PresenceBinder.Busy(retryAfter: 60)) { try binder.request(visitor: a, bottle: bottle, now: clock.now) }
    }

    @Test func oneShotAdmitsOnlyItsFirstReader() throws {
        let context = Fixtures.context(nowISO)
        var bottle = try Fixtures.bottle(oneShot: true)
        var limiter = PasswordRateLimiter()
        #expect(ConditionEvaluator.evaluate(bottle, in: context).reports.first { $0.kind == .oneShot }?.outcome == .satisfied)
        try bottle.apply(.conditionsMet, at: context.now)
        let first = Fixtures.participant(in: bottle.id)
        try bottle.recordFirstOpen(by: first, hostPosition: Fixtures.berlin, at: context.now)
        let again = BottleOpener.check(bottle, in: context, attempt: attempt(bottle), hasher: hasher, limiter: &limiter)
        #expect(again.verdict == .open(isFirstOpen: false))
        let stranger = BottleOpener.check(bottle, in: context, attempt: attempt(bottle, token: Fixtures.creatorToken), hasher: hasher, limiter: &limiter)
        #expect(stranger.reasons == ["already opened by someone else"])
        #expect(ConditionEvaluator.evaluate(bottle, in: context).reports.first { $0.kind == .oneShot }?.outcome
            == .unknown(reason: "already opened; only its first reader may come back"))
    }

    @Test func allConditionsMustHoldAndUnknownNeverCounts() throws {
        let bottle = try Fixtures.bottle([
            BottleCondition(.timeOfDay(TimeOfDayWindow(start: (13, 0), end: (15, 0)))),
            BottleCondition(.weather(.temperature(ValueRange(maximum: 30)))),
        ])
        var context = Fixtures.context(nowISO) // 14:00 Berlin
        let noSensor = ConditionEvaluator.evaluate(bottle, in: context)
        #expect(!noSensor.isOpenable)
        #expect(noSensor.blockingReasons == ["no temperature sensor on this box"])
        context.weather = WeatherSnapshot(temperature: SensorSeries([SensorReading(time: context.now, value: 21)]))
        #expect(ConditionEvaluator.evaluate(bottle, in: context).isOpenable)
        context.now = context.now.addingTimeInterval(3_600)
        context.weather = WeatherSnapshot(temperature: SensorSeries([SensorReading(time: context.now, value: 21)]))
        #expect(!ConditionEvaluator.evaluate(bottle, in: context).isOpenable)
    }

    @Test func joinersOfAnOpenedChatSkipAmbientConditions() throws {
        var context = Fixtures.context(nowISO)
        var bottle = try passwordBottle([BottleCondition(.timeOfDay(TimeOfDayWindow(start: (13, 0), end: (15, 0))))])
        try bottle.apply(.conditionsMet, at: context.now)
        try bottle.recordFirstOpen(by: Fixtures.participant(Fixtures.creatorToken, in: bottle.id), hostPosition: nil, at: context.now)
        context.now = context.now.addingTimeInterval(7_200) // 16:00, window closed
        var limiter = PasswordRateLimiter()
        let join = BottleOpener.check(bottle, in: context, attempt: attempt(bottle, password: "kelp"), hasher: hasher, limiter: &limiter)
        #expect(join.verdict == .open(isFirstOpen: false))
        let noPassword = BottleOpener.check(bottle, in: context, attempt: attempt(bottle), hasher: hasher, limiter: &limiter)
        #expect(noPassword.verdict == .denied)
    }

    @Test func expiredBottlesNeverOpen() throws {
        let context = Fixtures.context(nowISO)
        var bottle = try Fixtures.bottle()
        try bottle.retire(by: Fixtures.creatorToken.hash, at: context.now)
        var limiter = PasswordRateLimiter()
        let decision = BottleOpener.check(bottle, in: context, attempt: attempt(bottle), hasher: hasher, limiter: &limiter)
        #expect(decision.reasons == ["this bottle has expired"])
    }
}

@Suite("Opening: the creator and their own password")
struct CreatorPasswordTests {
    @Test("the creator opens their password bottle without typing it; others still must")
    func creatorSkipsPassword() throws {
        let hasher = PasswordHasher(iterations: 1_000)
        let bottle = try Fixtures.bottle([BottleCondition(.password(try hasher.hash("kelp")))])
        var limiter = PasswordRateLimiter()
        let context = Fixtures.context("2024-06-01T12:00:00Z")
        let creator = OpenAttempt(visitor: Fixtures.creatorToken.hash, participant: Fixtures.participant(Fixtures.creatorToken, in: bottle.id),
                                  password: nil, presence: nil)
        #expect(BottleOpener.check(bottle, in: context, attempt: creator, hasher: hasher, limiter: &limiter).isOpen)
        let visitor = OpenAttempt(visitor: Fixtures.visitorToken.hash, participant: Fixtures.participant(Fixtures.visitorToken, in: bottle.id),
                                  password: nil, presence: nil)
        let denied = BottleOpener.check(bottle, in: context, attempt: visitor, hasher: hasher, limiter: &limiter)
        #expect(!denied.isOpen)
        #expect(denied.reasons == ["enter the password"])
    }
}

@Suite("Opening in two steps: everything cheap, then the one key derivation")
struct TwoStepOpeningTests {
    let hasher = Fixtures.hasher
    let context = Fixtures.context("2024-06-01T12:00:00Z")

    func attempt(_ bottle: Bottle, password: String?) -> OpenAttempt {
        OpenAttempt(visitor: Fixtures.visitorToken.hash, participant: Fixtures.participant(Fixtures.visitorToken, in: bottle.id),
                    password: password, presence: nil)
    }

    @Test("the first step asks for a verification only once the limiter admitted it; the second decides on the outcome")
    func verifyThenDecide() throws {
        let hash = try hasher.hash("kelp")
        let bottle = try Fixtures.bottle([BottleCondition(.password(hash), hint: "what floats")])
        var limiter = PasswordRateLimiter()
        let first = BottleOpener.check(bottle, in: context, attempt: attempt(bottle, password: "sand"), limiter: &limiter)
        #expect(first == .verify(hash))
        #expect(limiter.trackedAttempts == 1, "admitted and counted before any derivation")
        let wrong = BottleOpener.decide(bottle, in: context, attempt: attempt(bottle, password: "sand"),
                                        verified: PasswordVerdict(hash: hash, matches: false), limiter: &limiter)
        #expect(wrong.reasons == ["wrong password"])
        #expect(wrong.reports.first { $0.kind == .password }?.hint == "what floats")
        #expect(limiter.trackedAttempts == 1, "the second step does not admit again")
        #expect(limiter.trackedFailures == 1)
        let right = BottleOpener.decide(bottle, in: context, attempt: attempt(bottle, password: "kelp"),
                                        verified: PasswordVerdict(hash: hash, matches: true), limiter: &limiter)
        #expect(right.verdict == .open(isFirstOpen: true))
    }

    @Test("nothing to verify: no password typed, other conditions failing, or the limiter refusing")
    func decidedWithoutVerifying() throws {
        let hash = try hasher.hash("kelp")
        var limiter = PasswordRateLimiter(policy: .init(perVisitorPerBottle: .init(attempts: 1, window: 300)))
        let bottle = try Fixtures.bottle([BottleCondition(.password(hash))])
        guard case .decided(let missing) = BottleOpener.check(bottle, in: context, attempt: attempt(bottle, password: nil), limiter: &limiter) else {
            Issue.record("no password typed, yet asked to verify")
            return
        }
        #expect(missing.reasons == ["enter the password"])
        let waiting = try Fixtures.bottle([BottleCondition(.password(hash)), BottleCondition(.delay(UnlockDelay(seconds: 86_400)))])
        guard case .decided = BottleOpener.check(waiting, in: context, attempt: attempt(waiting, password: "kelp"), limiter: &limiter) else {
            Issue.record("other conditions fail, yet asked to verify")
            return
        }
        #expect(limiter.trackedAttempts == 0)
        #expect(BottleOpener.check(bottle, in: context, attempt: attempt(bottle, password: "kelp"), limiter: &limiter) == .verify(hash))
        guard case .decided(let limited) = BottleOpener.check(bottle, in: context, attempt: attempt(bottle, password: "kelp"), limiter: &limiter) else {
            Issue.record("limited, yet asked to verify")
            return
        }
        #expect(limited.retryAfter != nil)
        // An attempt taken back (the box was too busy to verify it) frees its place.
        limiter.withdraw(visitor: Fixtures.visitorToken.hash, bottle: bottle.id, admittedAt: context.now)
        #expect(limiter.trackedAttempts == 0)
        #expect(BottleOpener.check(bottle, in: context, attempt: attempt(bottle, password: "kelp"), limiter: &limiter) == .verify(hash))
    }

    @Test("a verdict for a hash the bottle no longer has decides nothing and counts no failure")
    func passwordChangedMeanwhile() throws {
        let old = try hasher.hash("kelp")
        let bottle = try Fixtures.bottle([BottleCondition(.password(try hasher.hash("reef")))])
        var limiter = PasswordRateLimiter()
        let decision = BottleOpener.decide(bottle, in: context, attempt: attempt(bottle, password: "kelp"),
                                           verified: PasswordVerdict(hash: old, matches: true), limiter: &limiter)
        #expect(!decision.isOpen)
        #expect(decision.reasons == ["the password was changed while yours was checked; try again"])
        #expect(limiter.trackedFailures == 0)
    }
}
