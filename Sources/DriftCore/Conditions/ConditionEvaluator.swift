import Foundation

/// Evaluates a bottle's ambient conditions against an ``AmbientContext``.
///
/// Pure: no I/O, time only from the context. Every report carries a human-readable
/// summary and, when not satisfied, a reason. Missing or stale inputs give
/// `.unknown(reason)`, which never counts as satisfied. Visitor proofs (password,
/// presence) are reported as unknown here ("checked when you open it"); see
/// ``BottleOpener`` for the check at open.
public enum ConditionEvaluator {
    /// Reports for every condition, then one-shot (when set) and expiry.
    public static func evaluate(_ bottle: Bottle, in context: AmbientContext) -> BottleEvaluation {
        var reports = bottle.conditions.map { report(for: $0, of: bottle, in: context) }
        if bottle.isOneShot { reports.append(oneShotReport(bottle, participant: nil)) }
        reports.append(expiryReport(bottle, in: context))
        return BottleEvaluation(reports: reports)
    }

    /// The report for one condition entry.
    public static func report(for entry: BottleCondition, of bottle: Bottle, in context: AmbientContext) -> ConditionReport {
        var result: ConditionReport
        switch entry.condition {
        case .password:
            result = ConditionReport(kind: .password, summary: "needs a password",
                                     outcome: .unknown(reason: "asked when you open it"))
        case .presence(let presence):
            result = ConditionReport(
                kind: .presence, summary: presenceSummary(presence),
                outcome: context.hasPresenceButton
                    ? .unknown(reason: "checked when you open it")
                    : .unknown(reason: "this box has no presence button"))
        case .timeOfDay(let window): result = timeOfDay(window, context)
        case .daysOfWeek(let days): result = daysOfWeek(days, context)
        case .dateRange(let range): result = dateRange(range, context)
        case .solar(let phases): result = solar(phases, context)
        case .weather(let weather): result = WeatherEvaluator.report(weather, context)
        case .boxPosition(let position): result = boxPosition(position, context)
        case .distanceFromOrigin(let distance): result = distanceFromOrigin(distance, bottle, context)
        case .delay(let delay): result = self.delay(delay, bottle, context)
        }
        result.hint = entry.hint
        return result
    }

    // MARK: - Bottle-level conditions

    /// One-shot: satisfied while nobody has opened it, or for its first reader.
    static func oneShotReport(_ bottle: Bottle, participant: ParticipantID?) -> ConditionReport {
        let summary = "one reader only"
        guard let first = bottle.firstOpener else {
            return ConditionReport(kind: .oneShot, summary: summary, outcome: .satisfied)
        }
        guard let participant else {
            return ConditionReport(kind: .oneShot, summary: summary,
                                   outcome: .unknown(reason: "already opened; only its first reader may come back"))
        }
        return ConditionReport(kind: .oneShot, summary: summary,
                               outcome: participant == first ? .satisfied : .notSatisfied(reason: "already opened by someone else"))
    }

    /// Expiry: satisfied until `expiresAt`.
    public static func expiryReport(_ bottle: Bottle, in context: AmbientContext) -> ConditionReport {
        let summary = "expires \(Text.dateTime(bottle.expiresAt, in: context.timeZone)) (\(context.timeZone.identifier))"
        guard context.clockSynchronized else {
            return ConditionReport(kind: .expiry, summary: summary, outcome: .unknown(reason: clockReason))
        }
        if context.now < bottle.expiresAt {
            return ConditionReport(kind: .expiry, summary: summary, outcome: .satisfied, changesAt: bottle.expiresAt)
        }
        return ConditionReport(kind: .expiry, summary: summary,
                               outcome: .notSatisfied(reason: "expired \(Text.duration(context.now.timeIntervalSince(bottle.expiresAt))) ago"))
    }

    static let clockReason = "the box clock is not set yet (waiting for GPS or network time)"

    public static func presenceSummary(_ presence: PresenceCondition) -> String {
        "needs a press of the button on the box, within \(Text.duration(Double(presence.withinSeconds))) before opening"
    }

    // MARK: - Time

    static func timeOfDay(_ window: TimeOfDayWindow, _ context: AmbientContext) -> ConditionReport {
        let zone = context.timeZone
        let summary = "opens between \(Text.clock(minuteOfDay: window.startMinute)) and \(Text.clock(minuteOfDay: window.endMinute)) (\(zone.identifier))"
        guard context.clockSynchronized else {
            return ConditionReport(kind: .timeOfDay, summary: summary, outcome: .unknown(reason: clockReason))
        }
        let calendar = Calendar.gregorian(in: zone)
        let parts = calendar.dateComponents([.hour, .minute], from: context.now)
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        let inside = window.contains(minuteOfDay: minute)
        let edge = inside ? window.endMinute : window.startMinute
        let changesAt = calendar.nextDate(after: context.now, matching: DateComponents(hour: edge / 60, minute: edge % 60),
                                          matchingPolicy: .nextTime)
        if inside {
            return ConditionReport(kind: .timeOfDay, summary: summary, outcome: .satisfied, changesAt: changesAt)
        }
        return ConditionReport(
            kind: .timeOfDay, summary: summary,
            outcome: .notSatisfied(reason: "it is \(Text.clock(minuteOfDay: minute)) (\(zone.identifier)); opens at \(Text.clock(minuteOfDay: window.startMinute))"),
            changesAt: changesAt)
    }

    static func daysOfWeek(_ days: Set<Weekday>, _ context: AmbientContext) -> ConditionReport {
        let summary = "opens on " + days.sorted().map(\.shortName).joined(separator: ", ")
        guard context.clockSynchronized else {
            return ConditionReport(kind: .daysOfWeek, summary: summary, outcome: .unknown(reason: clockReason))
        }
        let calendar = Calendar.gregorian(in: context.timeZone)
        let today = Weekday(gregorianWeekday: calendar.component(.weekday, from: context.now))
        let inside = days.contains(today)
        // The next local midnight at which membership flips.
        var changesAt: Date?
        var day = calendar.startOfDay(for: context.now)
        for _ in 1...7 {
            guard let next = calendar.date(byAdding: .day, value: 1, to: day) else { break }
            day = next
            let weekday = Weekday(gregorianWeekday: calendar.component(.weekday, from: day))
            if days.contains(weekday) != inside {
                changesAt = day
                break
            }
        }
        return ConditionReport(kind: .daysOfWeek, summary: summary,
                               outcome: inside ? .satisfied : .notSatisfied(reason: "today is \(today.name)"),
                               changesAt: changesAt)
    }

    static func dateRange(_ range: DateRange, _ context: AmbientContext) -> ConditionReport {
        let summary: String
        switch (range.from, range.through) {
        case let (from?, through?): summary = "opens from \(from) through \(through)"
        case let (from?, nil): summary = "opens from \(from)"
        case let (nil, through?): summary = "opens until \(through)"
        case (nil, nil): summary = "opens any day"
        }
        guard context.clockSynchronized else {
            return ConditionReport(kind: .dateRange, summary: summary, outcome: .unknown(reason: clockReason))
        }
        let zone = context.timeZone
        let today = LocalDate(context.now, in: zone)
        let calendar = Calendar.gregorian(in: zone)
        if let from = range.from, today < from {
            return ConditionReport(kind: .dateRange, summary: summary,
                                   outcome: .notSatisfied(reason: "opens on \(from)"), changesAt: from.start(in: zone))
        }
        if let through = range.through, today > through {
            return ConditionReport(kind: .dateRange, summary: summary,
                                   outcome: .notSatisfied(reason: "closed after \(through)"))
        }
        let end = range.through.flatMap { calendar.date(byAdding: .day, value: 1, to: $0.start(in: zone)) }
        return ConditionReport(kind: .dateRange, summary: summary, outcome: .satisfied, changesAt: end)
    }

    static func delay(_ delay: UnlockDelay, _ bottle: Bottle, _ context: AmbientContext) -> ConditionReport {
        let summary = "opens \(Text.duration(Double(delay.seconds))) after it was dropped"
        guard context.clockSynchronized else {
            return ConditionReport(kind: .delay, summary: summary, outcome: .unknown(reason: clockReason))
        }
        let unlock = bottle.createdAt.addingTimeInterval(Double(delay.seconds))
        if context.now >= unlock {
            return ConditionReport(kind: .delay, summary: summary, outcome: .satisfied)
        }
        return ConditionReport(kind: .delay, summary: summary,
                               outcome: .notSatisfied(reason: "opens in \(Text.duration(unlock.timeIntervalSince(context.now)))"),
                               changesAt: unlock)
    }

    // MARK: - Sun

    static func solar(_ phases: Set<SolarPhase>, _ context: AmbientContext) -> ConditionReport {
        let ordered = SolarPhase.allCases.filter(phases.contains)
        let summary = "opens " + ordered.map(\.phrase).joined(separator: " or ")
        guard context.clockSynchronized else {
            return ConditionReport(kind: .solar, summary: summary, outcome: .unknown(reason: clockReason))
        }
        guard let position = context.solarPosition() else {
            return ConditionReport(kind: .solar, summary: summary,
                                   outcome: .unknown(reason: "the box's position is unknown (no GPS fix yet and none configured)"))
        }
        let now = context.now
        let zone = context.timeZone
        let phase = SolarCalculator.phase(at: now, for: position)
        let inside = phases.contains(phase)
        // Next boundary events today and tomorrow, with the phase each one starts.
        let today = SolarCalculator.solarDay(containing: now, in: zone, at: position)
        let tomorrow = SolarCalculator.solarDay(containing: now.addingTimeInterval(86_400), in: zone, at: position)
        var upcoming: [(Date, SolarPhase)] = []
        for day in [today, tomorrow] {
            let events: [(SunEvent, SolarPhase)] = [(day.civilDawn, .civilDawn), (day.sunrise, .day),
                                                    (day.sunset, .civilDusk), (day.civilDusk, .night)]
            upcoming += events.compactMap { event, starts in event.date.map { ($0, starts) } }
        }
        upcoming = upcoming.filter { $0.0 > now }.sorted { $0.0 < $1.0 }
        let change = upcoming.first { phases.contains($0.1) != inside }
        if inside {
            return ConditionReport(kind: .solar, summary: summary, outcome: .satisfied, changesAt: change?.0)
        }
        var reason = phase.currently
        switch today.classification {
        case .polarDay: reason = "polar day: the sun does not set today"
        case .polarNight: reason = "polar night: the sun does not rise today"
        case .normal: break
        }
        if let change {
            reason += "; opens at \(Text.clock(change.0, in: zone))"
        }
        return ConditionReport(kind: .solar, summary: summary, outcome: .notSatisfied(reason: reason), changesAt: change?.0)
    }

    // MARK: - Position

    static func boxPosition(_ condition: BoxPositionCondition, _ context: AmbientContext) -> ConditionReport {
        let center = condition.center
        let summary = "opens when the box is within \(Text.distance(condition.radiusMeters)) of "
            + String(format: "%.5f, %.5f", center.latitude, center.longitude)
        switch context.goodFix() {
        case .failure(let problem):
            return ConditionReport(kind: .boxPosition, summary: summary, outcome: .unknown(reason: problem.reason))
        case .success(let fix):
            let distance = fix.position.distance(to: center)
            return ConditionReport(
                kind: .boxPosition, summary: summary,
                outcome: distance <= condition.radiusMeters
                    ? .satisfied
                    : .notSatisfied(reason: "the box is \(Text.distance(distance)) away"),
                recheckAt: fixStaleAt(fix, context))
        }
    }

    static func distanceFromOrigin(_ condition: DistanceFromOriginCondition, _ bottle: Bottle, _ context: AmbientContext) -> ConditionReport {
        let summary = "opens within \(Text.distance(condition.maximumKilometres * 1000)) of where it was dropped"
        if let box = context.boxID, box == bottle.origin.boxID {
            return ConditionReport(kind: .distanceFromOrigin, summary: summary, outcome: .satisfied)
        }
        guard let origin = bottle.origin.position else {
            return ConditionReport(kind: .distanceFromOrigin, summary: summary,
                                   outcome: .unknown(reason: "where it was dropped is unknown"))
        }
        switch context.goodFix() {
        case .failure(let problem):
            return ConditionReport(kind: .distanceFromOrigin, summary: summary, outcome: .unknown(reason: problem.reason))
        case .success(let fix):
            let distance = fix.position.distance(to: origin)
            return ConditionReport(
                kind: .distanceFromOrigin, summary: summary,
                outcome: distance <= condition.maximumKilometres * 1000
                    ? .satisfied
                    : .notSatisfied(reason: "the box is \(Text.distance(distance)) from where it was dropped"),
                recheckAt: fixStaleAt(fix, context))
        }
    }

    /// When `fix` stops counting as a good fix (``ConditionLimits/maximumFixAge``).
    static func fixStaleAt(_ fix: PositionFix, _ context: AmbientContext) -> Date {
        fix.time.addingTimeInterval(context.limits.maximumFixAge)
    }
}
