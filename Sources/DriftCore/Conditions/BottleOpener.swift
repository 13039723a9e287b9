import Foundation

/// Checks an open attempt: current ambient conditions (before the first open),
/// one-shot, expiry, then the visitor proofs.
///
/// Order: the cheap checks first; the password is verified last and only when
/// everything else holds, so a visitor does not burn password attempts while the
/// bottle is closed for other reasons. Every verification is admitted by the
/// ``PasswordRateLimiter`` first. After the first open, later visitors joining the
/// chat must pass the visitor proofs again (and one-shot, expiry) but not the
/// ambient conditions: once open, a bottle stays open until its chat dies.
///
/// The check comes in two steps so that the one costly part, deriving the password's
/// PBKDF2 key, can run where the caller chooses (the daemon's hashing threads):
/// ``check(_:in:attempt:limiter:)`` answers ``OpenCheck/verify(_:)`` when only the
/// password is left and the limiter admitted it; the caller verifies and hands the
/// outcome to ``decide(_:in:attempt:verified:limiter:)``.
/// ``check(_:in:attempt:hasher:limiter:)`` does both in one call.
public enum BottleOpener {
    /// Both steps at once, verifying with `hasher` on the caller's thread.
    public static func check(
        _ bottle: Bottle, in context: AmbientContext, attempt: OpenAttempt,
        hasher: some PasswordHashing, limiter: inout PasswordRateLimiter
    ) -> OpenDecision {
        switch check(bottle, in: context, attempt: attempt, limiter: &limiter) {
        case .decided(let decision):
            return decision
        case .verify(let hash):
            let verdict = PasswordVerdict(hash: hash, matches: hasher.verify(attempt.password ?? "", against: hash))
            return decide(bottle, in: context, attempt: attempt, verified: verdict, limiter: &limiter)
        }
    }

    /// The first step: everything but the password's key derivation. Answers
    /// ``OpenCheck/verify(_:)`` only when every other condition holds and the limiter
    /// admitted (and counted) the attempt.
    public static func check(
        _ bottle: Bottle, in context: AmbientContext, attempt: OpenAttempt, limiter: inout PasswordRateLimiter
    ) -> OpenCheck {
        judge(bottle, in: context, attempt: attempt, verified: nil, limiter: &limiter)
    }

    /// The second step, once `attempt.password` was verified against `verified.hash`:
    /// judges `bottle` as it is now (it may have changed meanwhile) with that outcome,
    /// without admitting the attempt again. A wrong password is recorded with the limiter.
    public static func decide(
        _ bottle: Bottle, in context: AmbientContext, attempt: OpenAttempt, verified: PasswordVerdict,
        limiter: inout PasswordRateLimiter
    ) -> OpenDecision {
        switch judge(bottle, in: context, attempt: attempt, verified: verified, limiter: &limiter) {
        case .decided(let decision):
            return decision
        case .verify:
            // `passwordStep` answers `.verify` only when no verdict was given.
            preconditionFailure("a verified attempt was sent to verification again")
        }
    }

    private static func judge(
        _ bottle: Bottle, in context: AmbientContext, attempt: OpenAttempt, verified: PasswordVerdict?,
        limiter: inout PasswordRateLimiter
    ) -> OpenCheck {
        var reports: [ConditionReport] = []
        switch bottle.state {
        case .expired:
            return .decided(OpenDecision(verdict: .denied, reports: [], reasons: ["this bottle has expired"]))
        case .locked, .openable:
            // Re-evaluate now: the stored state may lag behind the world.
            reports = ConditionEvaluator.evaluate(bottle, in: context).reports
        case .active, .dying:
            reports = [ConditionEvaluator.expiryReport(bottle, in: context)]
        }
        if bottle.isOneShot {
            reports.removeAll { $0.kind == .oneShot }
            reports.append(ConditionEvaluator.oneShotReport(bottle, participant: attempt.participant))
        }
        // Visitor proofs replace their ambient placeholders.
        reports.removeAll { !$0.kind.isAmbient }
        if let entry = bottle.condition(.presence), case .presence(let condition) = entry.condition {
            var report = presenceReport(condition, bottle: bottle, attempt: attempt, context: context)
            report.hint = entry.hint
            reports.append(report)
        }
        var retryAfter: TimeInterval?
        if let entry = bottle.condition(.password), case .password(let hash) = entry.condition {
            let othersHold = reports.allSatisfy(\.outcome.isSatisfied)
            switch passwordStep(hash, othersHold: othersHold, bottle: bottle, attempt: attempt, context: context,
                                verified: verified, limiter: &limiter, retryAfter: &retryAfter) {
            case .verify:
                return .verify(hash)
            case .report(var report):
                report.hint = entry.hint
                reports.append(report)
            }
        }
        let reasons = reports.compactMap(\.outcome.reason)
        guard reasons.isEmpty else {
            var decision = OpenDecision(verdict: .denied, reports: reports, reasons: reasons)
            decision.retryAfter = retryAfter
            return .decided(decision)
        }
        return .decided(OpenDecision(verdict: .open(isFirstOpen: bottle.state == .openable || bottle.state == .locked),
                                     reports: reports, reasons: []))
    }

    static func presenceReport(_ condition: PresenceCondition, bottle: Bottle, attempt: OpenAttempt, context: AmbientContext) -> ConditionReport {
        let summary = ConditionEvaluator.presenceSummary(condition)
        guard context.hasPresenceButton else {
            return ConditionReport(kind: .presence, summary: summary, outcome: .unknown(reason: "this box has no presence button"))
        }
        guard let proof = attempt.presence, proof.visitor == attempt.visitor, proof.bottle == bottle.id else {
            return ConditionReport(kind: .presence, summary: summary,
                                   outcome: .notSatisfied(reason: "ask for a presence check, then press the button on the box"))
        }
        let age = context.now.timeIntervalSince(proof.pressedAt)
        guard age >= 0, age <= Double(condition.withinSeconds) else {
            return ConditionReport(
                kind: .presence, summary: summary,
                outcome: .notSatisfied(reason: "your button press was \(Text.duration(age)) ago; it counts for \(Text.duration(Double(condition.withinSeconds)))"))
        }
        return ConditionReport(kind: .presence, summary: summary, outcome: .satisfied)
    }

    /// The password condition's report, or `.verify` when its key must be derived first.
    enum PasswordStep {
        case report(ConditionReport)
        case verify
    }

    static func passwordStep(
        _ hash: PasswordHash, othersHold: Bool, bottle: Bottle, attempt: OpenAttempt, context: AmbientContext,
        verified: PasswordVerdict?, limiter: inout PasswordRateLimiter, retryAfter: inout TimeInterval?
    ) -> PasswordStep {
        let summary = "needs a password"
        // The creator chose the password; they are not asked for it.
        if bottle.isCreator(attempt.visitor) {
            return .report(ConditionReport(kind: .password, summary: summary, outcome: .satisfied))
        }
        guard let typed = attempt.password, !typed.isEmpty else {
            return .report(ConditionReport(kind: .password, summary: summary, outcome: .notSatisfied(reason: "enter the password")))
        }
        if let verified {
            // Admitted and verified already; the outcome holds for the hash it was verified against.
            guard verified.hash == hash else {
                return .report(ConditionReport(kind: .password, summary: summary,
                                               outcome: .notSatisfied(reason: "the password was changed while yours was checked; try again")))
            }
            guard verified.matches else {
                limiter.recordFailure(visitor: attempt.visitor, client: attempt.client, bottle: bottle.id, now: context.now)
                return .report(ConditionReport(kind: .password, summary: summary, outcome: .notSatisfied(reason: "wrong password")))
            }
            return .report(ConditionReport(kind: .password, summary: summary, outcome: .satisfied))
        }
        guard othersHold else {
            return .report(ConditionReport(kind: .password, summary: summary,
                                           outcome: .unknown(reason: "checked once the other conditions hold")))
        }
        switch limiter.admit(visitor: attempt.visitor, client: attempt.client, bottle: bottle.id, now: context.now) {
        case .limited(_, let wait):
            retryAfter = wait
            return .report(ConditionReport(kind: .password, summary: summary,
                                           outcome: .notSatisfied(reason: "too many attempts; try again in \(Text.duration(max(1, wait.rounded(.up))))")))
        case .allowed:
            return .verify
        }
    }
}

/// The first step of an open check (``BottleOpener/check(_:in:attempt:limiter:)``).
public enum OpenCheck: Sendable, Equatable {
    /// Decided without deriving any password key.
    case decided(OpenDecision)
    /// Only the password is left, and the limiter admitted the attempt: verify the typed
    /// password against this hash, then call ``BottleOpener/decide(_:in:attempt:verified:limiter:)``.
    case verify(PasswordHash)
}

/// The outcome of verifying an open attempt's password.
public struct PasswordVerdict: Sendable, Equatable {
    /// The hash the password was verified against.
    public var hash: PasswordHash
    /// Whether it matched.
    public var matches: Bool

    public init(hash: PasswordHash, matches: Bool) {
        self.hash = hash
        self.matches = matches
    }
}
