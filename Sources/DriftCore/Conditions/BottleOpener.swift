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
public enum BottleOpener {
    public static func check(
        _ bottle: Bottle, in context: AmbientContext, attempt: OpenAttempt,
        hasher: PasswordHasher, limiter: inout PasswordRateLimiter
    ) -> OpenDecision {
        var reports: [ConditionReport] = []
        switch bottle.state {
        case .expired:
            return OpenDecision(verdict: .denied, reports: [], reasons: ["this bottle has expired"])
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
            var report = passwordReport(hash, othersHold: othersHold, bottle: bottle, attempt: attempt,
                                        context: context, hasher: hasher, limiter: &limiter, retryAfter: &retryAfter)
            report.hint = entry.hint
            reports.append(report)
        }
        let reasons = reports.compactMap(\.outcome.reason)
        guard reasons.isEmpty else {
            var decision = OpenDecision(verdict: .denied, reports: reports, reasons: reasons)
            decision.retryAfter = retryAfter
            return decision
        }
        return OpenDecision(verdict: .open(isFirstOpen: bottle.state == .openable || bottle.state == .locked),
                            reports: reports, reasons: [])
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

    static func passwordReport(
        _ hash: PasswordHash, othersHold: Bool, bottle: Bottle, attempt: OpenAttempt, context: AmbientContext,
        hasher: PasswordHasher, limiter: inout PasswordRateLimiter, retryAfter: inout TimeInterval?
    ) -> ConditionReport {
        let summary = "needs a password"
        // The creator chose the password; they are not asked for it.
        if bottle.isCreator(attempt.visitor) {
            return ConditionReport(kind: .password, summary: summary, outcome: .satisfied)
        }
        guard let typed = attempt.password, !typed.isEmpty else {
            return ConditionReport(kind: .password, summary: summary, outcome: .notSatisfied(reason: "enter the password"))
        }
        guard othersHold else {
            return ConditionReport(kind: .password, summary: summary,
                                   outcome: .unknown(reason: "checked once the other conditions hold"))
        }
        switch limiter.admit(visitor: attempt.visitor, client: attempt.client, bottle: bottle.id, now: context.now) {
        case .limited(_, let wait):
            retryAfter = wait
            return ConditionReport(kind: .password, summary: summary,
                                   outcome: .notSatisfied(reason: "too many attempts; try again in \(Text.duration(max(1, wait.rounded(.up))))"))
        case .allowed:
            guard hasher.verify(typed, against: hash) else {
                limiter.recordFailure(visitor: attempt.visitor, client: attempt.client, bottle: bottle.id, now: context.now)
                return ConditionReport(kind: .password, summary: summary, outcome: .notSatisfied(reason: "wrong password"))
            }
            return ConditionReport(kind: .password, summary: summary, outcome: .satisfied)
        }
    }
}
