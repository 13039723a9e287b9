import DriftCore
import Foundation
import Testing

@Suite struct EventTests {
    let bottle = Fixtures.bottleID(1)
    let other = Fixtures.bottleID(2)
    let now = Fixtures.date("2024-06-01T12:00:00Z")
    var alice: ParticipantID { Fixtures.participant(in: bottle) }

    @Test func busBroadcastsToEverySubscriber() async {
        let bus = EventBus()
        let first = await bus.subscribe()
        let second = await bus.subscribe()
        #expect(await bus.subscriberCount == 2)
        let event = DriftEvent(bottle: bottle, at: now, kind: .becameOpenable)
        #expect(await bus.publish(event))
        await bus.finish()
        var received: [[DriftEvent]] = []
        for stream in [first, second] {
            var events: [DriftEvent] = []
            for await event in stream { events.append(event) }
            received.append(events)
        }
        #expect(received == [[event], [event]])
    }

    @Test func noEventAfterExpiry() async {
        let bus = EventBus()
        let stream = await bus.subscribe()
        #expect(await bus.publish(DriftEvent(bottle: bottle, at: now, kind: .participantJoined(alice))))
        #expect(await bus.publish(DriftEvent(bottle: bottle, at: now, kind: .expired(reason: .countdownEnded))))
        #expect(await !bus.publish(DriftEvent(bottle: bottle, at: now, kind: .linesWhileAway(count: 3))))
        #expect(await !bus.publish(DriftEvent(bottle: bottle, at: now, kind: .expired(reason: .hardExpiry))))
        #expect(await bus.publish(DriftEvent(bottle: other, at: now, kind: .becameOpenable)))
        #expect(await bus.droppedAfterExpiry == 2)
        await bus.finish()
        var kinds: [DriftEvent.Kind] = []
        for await event in stream { kinds.append(event.kind) }
        #expect(kinds == [.participantJoined(alice), .expired(reason: .countdownEnded), .becameOpenable])
    }

    @Test func slowSubscribersKeepTheNewestEvents() async {
        let bus = EventBus(bufferSize: 3)
        let stream = await bus.subscribe()
        for index in 0..<10 {
            await bus.publish(DriftEvent(bottle: bottle, at: now, kind: .linesWhileAway(count: index)))
        }
        await bus.finish()
        var counts: [Int] = []
        for await event in stream {
            if case .linesWhileAway(let count) = event.kind { counts.append(count) }
        }
        #expect(counts == [7, 8, 9])
    }

    @Test func cancelledSubscribersAreRemoved() async throws {
        let bus = EventBus()
        let task = Task {
            for await _ in await bus.subscribe() {}
        }
        while await bus.subscriberCount == 0 { await Task.yield() }
        task.cancel()
        await task.value
        for _ in 0..<1_000 where await bus.subscriberCount > 0 { await Task.yield() }
        #expect(await bus.subscriberCount == 0)
        // A subscription after finish ends at once.
        await bus.finish()
        var count = 0
        for await _ in await bus.subscribe() { count += 1 }
        #expect(count == 0)
    }

    @Test func creatorHearsOfTheFirstOpenOnce() {
        var limiter = CreatorNotificationLimiter()
        #expect(limiter.firstOpen(bottle, at: now, distance: 1_200)?.kind == .firstOpen(distanceTravelledMeters: 1_200))
        #expect(limiter.firstOpen(bottle, at: now, distance: 1_200) == nil)
        #expect(limiter.firstOpen(other, at: now, distance: nil, preferences: NotificationPreferences(firstOpen: false)) == nil)
    }

    @Test func joinNoticesAreRateLimited() {
        var limiter = CreatorNotificationLimiter()
        var clock = TestClock("2024-06-01T12:00:00Z")
        #expect(limiter.participantJoined(alice, in: bottle, at: clock.now) != nil)
        clock.advance(599)
        #expect(limiter.participantJoined(alice, in: bottle, at: clock.now) == nil)
        #expect(limiter.participantJoined(alice, in: other, at: clock.now) != nil, "limits are per bottle")
        clock.advance(1)
        #expect(limiter.participantJoined(alice, in: bottle, at: clock.now) != nil)
    }

    @Test func linesWhileAwayAreAggregated() {
        var limiter = CreatorNotificationLimiter()
        var clock = TestClock("2024-06-01T12:00:00Z")
        #expect(limiter.linePosted(in: bottle, at: clock.now, creatorPresent: false)?.kind == .linesWhileAway(count: 1))
        for _ in 0..<4 {
            clock.advance(60)
            #expect(limiter.linePosted(in: bottle, at: clock.now, creatorPresent: false) == nil)
        }
        #expect(limiter.nextFlush == Fixtures.date("2024-06-01T12:15:00Z"))
        clock.advance(300)
        #expect(limiter.flush(at: clock.now).isEmpty, "interval not over yet")
        clock.advance(360)
        #expect(limiter.flush(at: clock.now).map(\.kind) == [.linesWhileAway(count: 4)])
        #expect(limiter.flush(at: clock.now).isEmpty)
        // Lines while the creator is inside are not "while away" and reset the count.
        clock.advance(60)
        #expect(limiter.linePosted(in: bottle, at: clock.now, creatorPresent: false) == nil)
        #expect(limiter.linePosted(in: bottle, at: clock.now, creatorPresent: true) == nil)
        clock.advance(3_600)
        #expect(limiter.flush(at: clock.now).isEmpty)
    }

    @Test func creatorNoticesStopAtExpiry() {
        var limiter = CreatorNotificationLimiter()
        _ = limiter.linePosted(in: bottle, at: now, creatorPresent: false)
        _ = limiter.linePosted(in: bottle, at: now.addingTimeInterval(1), creatorPresent: false)
        limiter.bottleExpired(bottle)
        #expect(limiter.flush(at: now.addingTimeInterval(3_600)).isEmpty)
        #expect(limiter.participantJoined(alice, in: bottle, at: now.addingTimeInterval(3_600)) == nil)
        #expect(limiter.linePosted(in: bottle, at: now.addingTimeInterval(3_600), creatorPresent: false) == nil)
        #expect(limiter.firstOpen(bottle, at: now.addingTimeInterval(3_600), distance: nil) == nil)
    }
}
