import DriftMesh
import Testing

/// Relays retry once without an implicit ack while the channel is busy
/// (`MeshRouterConfiguration.retryRelaysWhenBusy`, off by default), after
/// `relayImplicitAckTimeout`. Manual clock: every `now` is explicit.
@Suite struct RouterBusyRetryTests {
    typealias T = RouterTests

    /// B hears A and C; C also hears E, whom B does not hear. B relays A's packet for C, and
    /// C's relay (one hop beyond B's) is B's implicit ack.
    static func relayingB(busy: Bool) -> (MeshRouter, MeshHeader, sentAt: Duration) {
        var r = T.router(T.b, hears: [T.a: [T.b], T.c: [T.b, T.e]])
        r.configuration.retryRelaysWhenBusy = true
        r.channelBusy = busy
        let h = T.header()
        _ = r.heard(h, link: T.good, firstTime: true, now: .seconds(10))
        var sentAt = Duration.zero
        while let t = r.nextDeadline, t <= .seconds(20) {
            if r.due(now: t).contains(.transmit(h.relayed(by: T.b))) { sentAt = t }
        }
        return (r, h, sentAt)
    }

    @Test func aRelayOnABusyChannelRetriesOnceAfterTheRelayTimeout() throws {
        var (r, h, sentAt) = Self.relayingB(busy: true)
        try #require(sentAt > .zero)
        let timeout = r.configuration.relayImplicitAckTimeout
        #expect(timeout == .seconds(16))
        // Not at the origin's shorter timeout (5 s here): a neighbour's relay may still be pending.
        #expect(T.run(&r, until: sentAt + timeout - .milliseconds(1)).isEmpty)
        #expect(T.run(&r, until: sentAt + timeout) == [.transmit(h.relayed(by: T.b))])
        #expect(T.run(&r, until: sentAt + .seconds(120)).isEmpty)
        #expect(r.counters.implicitAckRetries == 1)
    }

    @Test func aRelayOnAQuietChannelDoesNotRetry() throws {
        var (r, _, sentAt) = Self.relayingB(busy: false)
        try #require(sentAt > .zero)
        r.channelBusy = true  // what counts is the channel when the relay went out
        #expect(T.run(&r, until: sentAt + .seconds(120)).isEmpty)
        #expect(r.counters.implicitAckRetries == 0)
    }

    @Test func theNextHopsRelayIsTheAck() throws {
        var (r, h, sentAt) = Self.relayingB(busy: true)
        try #require(sentAt > .zero)
        let relayed = h.relayed(by: T.b).relayed(by: T.c)
        // (The router also reports its relay as redundant now; the caller ignores that for a
        // frame already sent.)
        _ = r.heard(relayed, link: T.good, firstTime: false, now: sentAt + .seconds(12))
        #expect(T.run(&r, until: sentAt + .seconds(120)).isEmpty)
        #expect(r.counters.implicitAckRetries == 0)
    }

    @Test func offByDefaultNoRelayRetries() throws {
        #expect(!MeshRouterConfiguration.standard.retryRelaysWhenBusy)
        var r = T.router(T.b, hears: [T.a: [T.b], T.c: [T.b, T.e]])
        r.channelBusy = true
        let h = T.header()
        _ = r.heard(h, link: T.good, firstTime: true, now: .seconds(10))
        let actions = T.run(&r, until: .seconds(200))
        #expect(actions == [.transmit(h.relayed(by: T.b))])
        #expect(r.counters.implicitAckRetries == 0)
    }
}
