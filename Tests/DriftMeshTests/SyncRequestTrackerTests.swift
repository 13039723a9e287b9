import DriftMesh
import Testing

/// Requests repeated until answered, the wait doubling (review finding 8), on explicit instants.
@Suite struct SyncRequestTrackerTests {
    static let x = PacketKey(origin: NodeID(0xA0A0_A0A1), packetID: 1)
    static let y = PacketKey(origin: NodeID(0xA0A0_A0A1), packetID: 2)

    @Test func aKeyNotHeardIsDueAfterItsTimeoutThenTwiceAsLongUntilItsAttemptsAreUsed() {
        var tracker = SyncRequestTracker(maximumAttempts: 3)
        tracker.asked([Self.x], now: .seconds(10), timeout: .seconds(4))
        #expect(tracker.nextDeadline == .seconds(14))
        #expect(tracker.due(now: .seconds(14) - .nanoseconds(1)).isEmpty)
        #expect(tracker.due(now: .seconds(14)) == [Self.x])
        tracker.asked([Self.x], now: .seconds(14), timeout: .seconds(4))
        #expect(tracker.nextDeadline == .seconds(22))
        #expect(tracker.due(now: .seconds(22)) == [Self.x])
        tracker.asked([Self.x], now: .seconds(22), timeout: .seconds(4))
        #expect(tracker.nextDeadline == .seconds(38))
        // Three requests made: the third one's wait ends the key.
        #expect(tracker.due(now: .seconds(38)).isEmpty)
        #expect(tracker.pending.isEmpty)
        #expect(tracker.nextDeadline == nil)
    }

    @Test func aKeyHeardIsDone() {
        var tracker = SyncRequestTracker()
        tracker.asked([Self.x, Self.y], now: .zero, timeout: .seconds(4))
        tracker.heard(Self.x)
        #expect(tracker.pending == [Self.y])
        #expect(tracker.due(now: .seconds(4)) == [Self.y])
    }

    @Test func askingAgainKeepsTheAttemptCount() {
        var tracker = SyncRequestTracker(maximumAttempts: 2)
        tracker.asked([Self.x], now: .zero, timeout: .seconds(4))
        tracker.asked([Self.x], now: .seconds(1), timeout: .seconds(4))  // a second digest listed it
        #expect(tracker.nextDeadline == .seconds(9))
        #expect(tracker.due(now: .seconds(9)).isEmpty, "two requests were made: no third")
        #expect(tracker.pending.isEmpty)
    }
}
