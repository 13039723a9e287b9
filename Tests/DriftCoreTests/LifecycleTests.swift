import DriftCore
import Foundation
import Testing

@Suite struct LifecycleTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var from: BottleState
        var trigger: LifecycleTrigger
        var to: BottleState
        var testDescription: String { "\(from.rawValue) --\(trigger.rawValue)--> \(to.rawValue)" }
    }

    /// The table exactly as written in docs/lifecycle.md.
    static let documented: [Row] = [
        Row(from: .locked, trigger: .conditionsMet, to: .openable),
        Row(from: .openable, trigger: .conditionsLost, to: .locked),
        Row(from: .openable, trigger: .firstOpen, to: .active),
        Row(from: .active, trigger: .countdownStarted, to: .dying),
        Row(from: .dying, trigger: .reentered, to: .active),
        Row(from: .dying, trigger: .keepAliveClaimed, to: .active),
        Row(from: .dying, trigger: .countdownEnded, to: .expired),
        Row(from: .active, trigger: .hardExpiry, to: .expired),
        Row(from: .dying, trigger: .hardExpiry, to: .expired),
        Row(from: .active, trigger: .oneShotConsumed, to: .expired),
        Row(from: .locked, trigger: .hardExpiry, to: .expired),
        Row(from: .openable, trigger: .hardExpiry, to: .expired),
        Row(from: .locked, trigger: .retired, to: .expired),
        Row(from: .openable, trigger: .retired, to: .expired),
    ]

    @Test(arguments: documented)
    func everyRowOfTheTable(_ row: Row) throws {
        #expect(try Lifecycle.transition(from: row.from, on: row.trigger) == row.to)
        #expect(Lifecycle.allows(row.trigger, from: row.from))
    }

    @Test func codeTableMatchesTheDocumentedTable() {
        #expect(Lifecycle.table.count == Self.documented.count)
        for (code, doc) in zip(Lifecycle.table, Self.documented) {
            #expect(code.from == doc.from && code.trigger == doc.trigger && code.to == doc.to)
        }
    }

    @Test func everyOtherPairIsATypedError() {
        let valid = Set(Self.documented.map { "\($0.from.rawValue)/\($0.trigger.rawValue)" })
        var invalid = 0
        for state in BottleState.allCases {
            for trigger in LifecycleTrigger.allCases where !valid.contains("\(state.rawValue)/\(trigger.rawValue)") {
                invalid += 1
                #expect(throws: LifecycleError.invalidTransition(from: state, trigger: trigger)) {
                    try Lifecycle.transition(from: state, on: trigger)
                }
            }
        }
        #expect(invalid == BottleState.allCases.count * LifecycleTrigger.allCases.count - Self.documented.count)
    }

    @Test(arguments: [
        (BottleState.locked, LifecycleTrigger.firstOpen),  // must become openable first
        (.active, .retired),                                // creators cannot kill a live chat
        (.expired, .conditionsMet),                         // expired is terminal
        (.expired, .reentered),
        (.dying, .countdownStarted),
        (.active, .conditionsLost),                          // open bottles do not relock
        (.openable, .countdownEnded),
    ])
    func sampleOfInvalidTransitionsOnABottle(state: BottleState, trigger: LifecycleTrigger) throws {
        var bottle = try Self.bottle(in: state)
        let before = bottle
        #expect(throws: LifecycleError.invalidTransition(from: state, trigger: trigger)) {
            try bottle.apply(trigger, at: Fixtures.date("2024-06-01T12:00:00Z"))
        }
        #expect(bottle == before, "a refused transition changes nothing")
    }

    @Test func retireNeedsTheCreator() throws {
        var bottle = try Fixtures.bottle()
        #expect(throws: LifecycleError.notCreator) { try bottle.retire(by: Fixtures.visitorToken.hash, at: Fixtures.date("2024-06-01T12:00:00Z")) }
        try bottle.retire(by: Fixtures.creatorToken.hash, at: Fixtures.date("2024-06-01T12:00:00Z"))
        #expect(bottle.state == .expired)
        #expect(bottle.stateChangedAt == Fixtures.date("2024-06-01T12:00:00Z"))
    }

    @Test func ambientEvaluationDrivesLockedAndOpenable() throws {
        var bottle = try Fixtures.bottle([BottleCondition(.timeOfDay(TimeOfDayWindow(start: (22, 0), end: (4, 0))))], lifetime: 86_400)
        func step(_ iso: String, synchronized: Bool = true) throws -> LifecycleTrigger? {
            let context = Fixtures.context(iso, synchronized: synchronized)
            let trigger = Lifecycle.ambientTrigger(for: bottle, evaluation: ConditionEvaluator.evaluate(bottle, in: context))
            if let trigger { try bottle.apply(trigger, at: context.now) }
            return trigger
        }
        #expect(try step("2024-06-01T12:00:00Z") == nil)                      // 14:00 Berlin, locked stays locked
        #expect(try step("2024-06-01T20:30:00Z") == .conditionsMet)           // 22:30
        #expect(try step("2024-06-01T21:00:00Z") == nil)
        #expect(try step("2024-06-01T21:00:00Z", synchronized: false) == .conditionsLost) // unknown never holds
        #expect(try step("2024-06-01T21:30:00Z") == .conditionsMet)
        #expect(try step("2024-06-02T02:00:00Z") == .conditionsLost)          // 04:00
        #expect(try step("2024-06-02T10:00:00Z", synchronized: false) == nil) // cannot tell the time: no expiry either
        #expect(try step("2024-06-02T10:00:00Z") == .hardExpiry)              // created 10:00Z + 1 day
        #expect(bottle.state == .expired)
        #expect(try step("2024-06-02T11:00:00Z") == nil)
    }

    /// A bottle driven into `state` through valid transitions only.
    static func bottle(in state: BottleState) throws -> Bottle {
        var bottle = try Fixtures.bottle()
        let at = Fixtures.date("2024-06-01T11:00:00Z")
        let path: [LifecycleTrigger]
        switch state {
        case .locked: path = []
        case .openable: path = [.conditionsMet]
        case .active: path = [.conditionsMet, .firstOpen]
        case .dying: path = [.conditionsMet, .firstOpen, .countdownStarted]
        case .expired: path = [.hardExpiry]
        }
        for trigger in path { try bottle.apply(trigger, at: at) }
        #expect(bottle.state == state)
        return bottle
    }
}
