import DriftMesh
import Testing

/// The follow-up hello of a start (`MeshRouterConfiguration.helloFollowsUpStart`): boxes
/// switched on together send their first hellos within the first-hello spread, each listing only
/// the neighbours it heard before; one more hello, once the others' first hellos are in, says
/// whom the box hears, instead of a hello period later. On a manual clock: the router's own
/// deadlines, the neighbours' hellos at fixed instants.
@Suite struct RouterHelloFollowUpTests {
    /// The boxes, key and link of `RouterLearningTests`: B the router, A and C its neighbours.
    typealias Boxes = RouterLearningTests
    static let start = Duration.seconds(1_000)

    /// B's hellos from its start at 1 000 s to 1 400 s at the daemon's pace (300 s ± 30 s, the
    /// first spread over `spread`): when each went and whom it listed. `heard`: neighbours'
    /// hellos B hears (when, from whom), each listing B.
    static func hellos(followUp: Bool = true, spread: Duration = .seconds(30), seed: UInt64 = 5,
                       heard: [(at: Duration, from: NodeID)]) -> (sent: [(at: Duration, followUp: Bool, listed: Set<NodeID>)], router: MeshRouter) {
        var config = MeshRouterConfiguration.standard
        config.firstHelloSpread = spread
        config.helloFollowsUpStart = followUp
        var r = MeshRouter(me: Boxes.b, configuration: config, seed: seed)
        var sent: [(at: Duration, followUp: Bool, listed: Set<NodeID>)] = []
        var pending = heard.sorted { $0.at < $1.at }
        var now = start
        func due(_ t: Duration) {
            let actions = r.due(now: t)
            if actions.contains(.sendHello) || actions.contains(.sendFollowUpHello) {
                sent.append((t, actions.contains(.sendFollowUpHello), Set(r.helloPayload(publicKey: nil, now: t).neighbours.map(\.id))))
            }
        }
        due(now)
        while let deadline = r.nextDeadline, deadline <= .seconds(1_400) {
            if let next = pending.first, next.at < deadline {
                pending.removeFirst()
                _ = r.heardHello(from: next.from, payload: HelloPayload(publicKey: Boxes.key, neighbours: [.init(id: Boxes.b, bucket: 3)]),
                                 link: Boxes.good, now: next.at)
                continue
            }
            now = max(now, deadline)
            due(now)
        }
        return (sent, r)
    }

    @Test("a neighbour heard after the first hello: one more hello, a spread after the start plus up to another, lists it; the next comes a hello period after the first")
    func aFollowUpListsTheNeighboursHeardSince() throws {
        // A's first hello at 1 030 s: after B's first (within 30 s), before the follow-up (from 1 030 s).
        let (sent, r) = Self.hellos(heard: [(.seconds(1_030), Boxes.a)])
        try #require(sent.count == 3, "\(sent)")
        #expect(!sent[0].followUp && sent[1].followUp && !sent[2].followUp, "\(sent)")
        #expect(sent[0].at >= Self.start && sent[0].at <= Self.start + .seconds(30) && sent[0].listed.isEmpty, "\(sent)")
        #expect(sent[1].at >= Self.start + .seconds(30) && sent[1].at <= Self.start + .seconds(60), "\(sent)")
        #expect(sent[1].listed == [Boxes.a], "\(sent)")
        // The hello period runs from the first hello, as without the follow-up.
        #expect(sent[2].at >= sent[0].at + .seconds(270) && sent[2].at <= sent[0].at + .seconds(330), "\(sent)")
        #expect(r.counters.followUpHellos == 1 && r.counters.followUpHellosSkipped == 0)
    }

    @Test("nobody new since the first hello: the follow-up is skipped and counted")
    func nothingNewNoFollowUp() throws {
        // A is heard at the start itself; B's first hello (drawn later than that for this seed) lists it.
        let (sent, r) = Self.hellos(heard: [(Self.start, Boxes.a)])
        try #require(sent.count == 2, "\(sent)")
        #expect(sent[0].at > Self.start && sent[0].listed == [Boxes.a], "\(sent)")
        #expect(sent[1].at >= sent[0].at + .seconds(270), "\(sent)")
        #expect(r.counters.followUpHellos == 0 && r.counters.followUpHellosSkipped == 1)
    }

    @Test("one new neighbour of two: the follow-up goes when the table holds any box the first hello did not list")
    func anyNewNeighbourCounts() throws {
        let (sent, _) = Self.hellos(heard: [(Self.start, Boxes.a), (.seconds(1_030), Boxes.c)])
        try #require(sent.count == 3, "\(sent)")
        #expect(sent[0].listed == [Boxes.a] && sent[1].listed == [Boxes.a, Boxes.c], "\(sent)")
    }

    @Test("the rule off, or no first-hello spread (the router model's): the second hello comes a hello period after the first")
    func offOrWithoutSpread() throws {
        let later = [(at: Duration.seconds(1_030), from: Boxes.a)]
        for (followUp, spread) in [(false, Duration.seconds(30)), (true, .zero)] {
            let (sent, r) = Self.hellos(followUp: followUp, spread: spread, heard: later)
            try #require(sent.count == 2, "follow-up \(followUp), spread \(spread): \(sent)")
            #expect(sent[1].at >= sent[0].at + .seconds(270), "\(sent)")
            #expect(r.counters.followUpHellos == 0 && r.counters.followUpHellosSkipped == 0)
        }
    }
}
