import DriftMesh
import Testing

@Suite("Transmit queue: priorities, budget, polite background traffic")
struct TransmitQueueTests {
    private func frame(_ id: UInt64, _ priority: TransmitPriority, ms: Int64 = 500) -> OutgoingFrame {
        OutgoingFrame(id: id, bytes: [UInt8(truncatingIfNeeded: id)], airtime: .milliseconds(ms), priority: priority)
    }

    /// Sends back to back from `start` while the queue allows it immediately; the clock advances
    /// by each frame's airtime (one frame on air at a time).
    private func drain(_ queue: inout TransmitQueue, at start: Duration) -> [UInt64] {
        var ids: [UInt64] = []
        var now = start
        while case let .send(f) = queue.next(now: now) {
            ids.append(f.id)
            now += f.airtime
        }
        return ids
    }

    @Test("Emergency > interactive > normal > background, first in first out within a class")
    func order() {
        var q = TransmitQueue(budget: AirtimeBudget(limit: nil))
        #expect(q.next(now: .zero) == .idle)
        q.enqueue(frame(1, .background))
        q.enqueue(frame(2, .normal))
        q.enqueue(frame(3, .interactive))
        q.enqueue(frame(4, .normal))
        q.enqueue(frame(5, .emergency))
        q.enqueue(frame(6, .interactive))
        #expect(q.count == 6)
        #expect(drain(&q, at: .zero) == [5, 3, 6, 2, 4, 1])
        #expect(q.next(now: .zero) == .idle)
    }

    @Test("A full class drops its oldest frame and counts it")
    func dropOldest() {
        var q = TransmitQueue(budget: AirtimeBudget(limit: nil), settings: .init(capacity: [.normal: 2]))
        #expect(q.enqueue(frame(1, .normal)) == .queued)
        #expect(q.enqueue(frame(2, .normal)) == .queued)
        #expect(q.enqueue(frame(3, .normal)) == .queuedDroppingOldest(id: 1))
        #expect(q.enqueue(frame(4, .interactive)) == .queued)  // other classes unaffected
        #expect(q.droppedOldest[.normal] == 1)
        #expect(q.pending(.normal).map(\.id) == [2, 3])
        let removed = q.remove(id: 2)
        let removedAgain = q.remove(id: 2)
        #expect(removed && !removedAgain)
        #expect(drain(&q, at: .zero) == [4, 3])
    }

    @Test("Background waits while the channel is busier than 25 %, then goes; other classes do not wait")
    func backgroundDeferral() {
        var q = TransmitQueue(budget: AirtimeBudget(limit: nil))
        q.noteReception(airtime: .seconds(20), endingAt: .seconds(60))  // 33 % of the last minute
        q.enqueue(frame(1, .background))
        #expect(q.next(now: .seconds(60)) == .wait(until: .seconds(65)))
        q.enqueue(frame(2, .normal))
        #expect(q.next(now: .seconds(60)) == .send(frame(2, .normal)))
        #expect(q.next(now: .seconds(60)) == .wait(until: .milliseconds(60_500)))  // still on air
        #expect(q.next(now: .seconds(61)) == .wait(until: .seconds(66)))
        // At 100 s the reception (40–60 s) is still wholly in the last minute: 34 % busy.
        #expect(q.next(now: .seconds(100)) == .wait(until: .seconds(105)))
        // At 110 s only 10 s of it (+ our 0.5 s) is: 17.5 %.
        #expect(q.next(now: .seconds(110)) == .send(frame(1, .background)))
        #expect(q.utilisation.transmitFraction(over: .seconds(60), now: .seconds(111)) == 1.0 / 60.0)
    }

    @Test("Background traffic heard or sent does not hold background frames back; with backgroundYieldsToBackground it does, and both count in the utilisation reported",
          arguments: [false, true])
    func backgroundIgnoresBackground(yields: Bool) {
        var q = TransmitQueue(budget: AirtimeBudget(limit: nil), settings: .init(backgroundYieldsToBackground: yields))
        // Another box's catch-up: 11.2 s of the minute to 40 s (19 %).
        q.noteReception(airtime: .milliseconds(11_200), endingAt: .seconds(40), background: true)
        for id in 1...30 { q.enqueue(frame(UInt64(id), .background)) }
        let sent = drain(&q, at: .seconds(40))
        // Yielding, ours count too: after eight frames of 500 ms the minute is 25.3 % busy.
        #expect(sent.count == (yields ? 8 : 30))
        #expect(q.utilisation.busyFraction(over: .seconds(60), now: .seconds(40) + .milliseconds(500) * sent.count)
                > 0.25)
        #expect(q.foreground.busyFraction(over: .seconds(60), now: .seconds(60)) == 0)
        // Foreground traffic heard holds it back either way.
        q.noteReception(airtime: .seconds(20), endingAt: .seconds(80))
        q.enqueue(frame(99, .background))
        #expect(q.next(now: .seconds(80)) == .wait(until: .seconds(85)))
    }

    @Test("The budget holds frames back until the window frees; lower classes do not overtake the waiting head")
    func budgetWait() {
        // 2 s per hour, no reserve: four 500 ms frames fit, the fifth waits an hour.
        var q = TransmitQueue(budget: AirtimeBudget(limit: .seconds(2), reserveFraction: 0))
        for id in 1...5 { q.enqueue(frame(UInt64(id), .interactive)) }
        #expect(drain(&q, at: .zero) == [1, 2, 3, 4])
        #expect(q.budget.used(now: .seconds(2)) == .seconds(2))
        q.enqueue(frame(9, .background, ms: 10))
        #expect(q.next(now: .seconds(10)) == .wait(until: .milliseconds(3_600_500)))
        #expect(q.next(now: .milliseconds(3_600_500)) == .send(frame(5, .interactive)))
        #expect(q.onAirUntil == .seconds(3601))
        #expect(q.next(now: .milliseconds(3_600_500)) == .wait(until: .seconds(3601)))
        // By then the second frame has aged out as far as the fifth came in: 1.5 s used.
        #expect(q.next(now: .seconds(3601)) == .send(frame(9, .background, ms: 10)))
    }

    @Test("The time the budget holds the queue back is counted per class of the frame that waits; a busy channel's wait is not")
    func budgetHeldTime() {
        // 1 s per hour, no reserve: two 500 ms frames fit, the third waits until the first ages out.
        var q = TransmitQueue(budget: AirtimeBudget(limit: .seconds(1), reserveFraction: 0))
        for id in 1...3 { q.enqueue(frame(UInt64(id), .normal)) }
        #expect(drain(&q, at: .zero) == [1, 2])  // the third met the budget at 1 s
        #expect(q.budgetHeld.isEmpty)
        #expect(q.budgetHeldTotal(now: .seconds(100)) == .seconds(99))  // the spell still going on
        #expect(q.budgetHeld(now: .seconds(100)) == [.normal: .seconds(99)])
        #expect(q.next(now: .seconds(100)) == .wait(until: .milliseconds(3_600_500)))
        #expect(q.next(now: .milliseconds(3_600_500)) == .send(frame(3, .normal)))
        #expect(q.budgetHeld == [.normal: .milliseconds(3_599_500)])
        #expect(q.budgetHeldSpells == 1)
        // Two background frames: the first fits beside the third's 500 ms, the second waits an hour.
        q.enqueue(frame(4, .background))
        q.enqueue(frame(5, .background))
        #expect(q.next(now: .seconds(3601)) == .send(frame(4, .background)))
        #expect(q.next(now: .milliseconds(3_601_500)) == .wait(until: .seconds(7201)))
        #expect(q.next(now: .seconds(7201)) == .send(frame(5, .background)))
        #expect(q.budgetHeld == [.normal: .milliseconds(3_599_500), .background: .milliseconds(3_599_500)])
        #expect(q.budgetHeldSpells == 2)
        #expect(q.budgetHeldTotal(now: .seconds(9000)) == .milliseconds(7_199_000))
        // Background frames waiting for a busy channel, with budget to spare, are not held by it.
        q.noteReception(airtime: .seconds(30), endingAt: .seconds(10_860))
        q.enqueue(frame(6, .background))
        #expect(q.next(now: .seconds(10_860)) == .wait(until: .seconds(10_865)))
        #expect(q.next(now: .seconds(10_920)) == .send(frame(6, .background)))
        #expect(q.budgetHeldSpells == 2)
        #expect(q.budgetHeldTotal(now: .seconds(10_920)) == .milliseconds(7_199_000))
    }

    @Test("Emergency traffic may use the reserve the other classes must leave")
    func emergencyReserve() {
        var q = TransmitQueue(budget: AirtimeBudget(limit: .seconds(10), reserveFraction: 0.1))
        for id in 1...20 { q.enqueue(frame(UInt64(id), .normal)) }
        #expect(drain(&q, at: .zero).count == 18)  // 9 s of 10
        q.enqueue(frame(100, .emergency))
        q.enqueue(frame(101, .emergency))
        q.enqueue(frame(102, .emergency))
        #expect(drain(&q, at: .seconds(20)) == [100, 101])
        if case let .wait(until) = q.next(now: .seconds(21)) {
            #expect(until > .seconds(3600))
        } else {
            Issue.record("expected a wait")
        }
    }

    @Test("A frame the region can never send is refused at enqueue and counted")
    func refusedByDwell() throws {
        let policy = try DutyCyclePolicy.forChannel(region: .us915, frequencyMHz: 906.875, bandwidthHz: 250_000)
        var q = TransmitQueue(budget: AirtimeBudget(policy: policy))
        let long = OutgoingFrame(id: 1, bytes: Array(repeating: 0, count: 50), modulation: .longFast, priority: .emergency)
        #expect(q.enqueue(long) == .refused(.exceedsDwell(airtime: long.airtime, limit: .milliseconds(400))))
        #expect(q.refused[.emergency] == 1)
        let short = OutgoingFrame(id: 2, bytes: Array(repeating: 0, count: 20), modulation: .longFast, priority: .normal)
        #expect(q.enqueue(short) == .queued)
        #expect(q.next(now: .zero) == .send(short))
    }
}
