import DriftMesh
import Testing

/// The router's busy-channel feed (issue 19): frames heard ≥ 10 % of the last 30 s.
@Suite("Channel busy detector")
struct ChannelBusyDetectorTests {
    @Test("busy from 10 % of the window heard; answers only when the state flips")
    func threshold() {
        var d = ChannelBusyDetector()
        #expect(d.heard(airtime: .seconds(1), endingAt: .seconds(10)) == nil)  // 1 s of 30: quiet
        #expect(d.heard(airtime: .milliseconds(1_999), endingAt: .seconds(12)) == nil)  // 2.999 s
        #expect(!d.busy)
        #expect(d.quietAt(after: .seconds(12)) == nil)
        #expect(d.heard(airtime: .milliseconds(1), endingAt: .seconds(13)) == true)  // 3 s: 10 %
        #expect(d.busy)
        #expect(d.heard(airtime: .seconds(1), endingAt: .seconds(15)) == nil)  // still busy: no answer
        #expect(d.heardShare(now: .seconds(15)) == 4.0 / 30.0)
    }

    @Test("overlapping frames (two boxes heard at once) count once")
    func overlap() {
        var d = ChannelBusyDetector()
        #expect(d.heard(airtime: .seconds(2), endingAt: .seconds(10)) == nil)  // 8–10 s
        #expect(d.heard(airtime: .seconds(2), endingAt: .seconds(11)) == true)  // 9–11 s: 3 s heard, not 4
        #expect(d.heardShare(now: .seconds(11)) == 3.0 / 30.0)
        var e = ChannelBusyDetector()
        _ = e.heard(airtime: .seconds(2), endingAt: .seconds(10))
        #expect(e.heard(airtime: .milliseconds(1_500), endingAt: .milliseconds(10_500)) == nil)  // 8–10.5 s: 2.5 s
        #expect(!e.busy)
    }

    @Test("a busy channel turns quiet when enough of what was heard has left the window, to the nanosecond")
    func quietAt() {
        var d = ChannelBusyDetector()
        _ = d.heard(airtime: .seconds(2), endingAt: .seconds(10))  // 8–10 s
        _ = d.heard(airtime: .seconds(2), endingAt: .seconds(20))  // 18–20 s: 4 s heard
        #expect(d.busy)
        // Below 3 s once more than 1 s has left: the window starts after 9 s, so at 39 s + 1 ns.
        let quiet = try! #require(d.quietAt(after: .seconds(20)))
        #expect(quiet == .seconds(39) + .nanoseconds(1))
        #expect(d.update(now: quiet - .nanoseconds(1)) == nil)
        #expect(d.busy, "exactly 3 s of 30 is still busy")
        #expect(d.update(now: quiet) == false)
        #expect(!d.busy)
        #expect(d.quietAt(after: quiet) == nil)
        // Heard again: busy from the new frame on, with a later quiet instant.
        #expect(d.heard(airtime: .seconds(3), endingAt: .seconds(45)) == true)
        #expect(d.quietAt(after: .seconds(45)).map { $0 > .seconds(45) } == true)
    }

    @Test("a clock reading centuries out is held at the limit, never traps: the detector and the budget go on counting")
    func farInstants() {
        var d = ChannelBusyDetector(threshold: 0.5, window: .seconds(10))
        let far = Duration.seconds(Int64.max)
        #expect(d.update(now: far) == nil)
        #expect(d.heard(airtime: .seconds(6), endingAt: far) == true)
        #expect(d.quietAt(after: far) != nil)
        var before = ChannelBusyDetector(threshold: 0.5, window: .seconds(10))
        #expect(before.update(now: .zero - far) == nil && !before.busy)
        var budget = AirtimeBudget(window: .seconds(3_600), limit: .seconds(360))
        budget.record(airtime: .seconds(1), at: far)
        #expect(budget.used(now: far) <= .seconds(1))
        #expect(budget.canTransmit(airtime: .seconds(1), now: far))
    }

    @Test("a frame longer than the threshold alone makes it busy; a silent box is quiet from the start")
    func edges() {
        var d = ChannelBusyDetector(threshold: 0.5, window: .seconds(10))
        #expect(d.update(now: .seconds(100)) == nil)
        #expect(d.heard(airtime: .seconds(6), endingAt: .seconds(106)) == true)
        #expect(d.quietAt(after: .seconds(106)) == .seconds(111) + .nanoseconds(1))
    }
}
