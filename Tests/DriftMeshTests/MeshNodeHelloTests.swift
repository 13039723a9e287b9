import DriftMesh
import Foundation
import Testing

/// Hellos without the key (`HelloPayload` version 2) on one node machine, with explicit
/// instants (no clock, no sleep): when the box leaves its key out, and what it does with a
/// neighbour's keyless hello.
@Suite("Mesh node machine: hellos without the key")
struct MeshNodeHelloTests {
    static let sealer = MeshNodeCatchUpTests.sealer

    /// A hello from `neighbour` sent at `t`, with or without its key, listing `listed`.
    static func hello(from neighbour: BoxKeyPair, keyed: Bool, listing listed: [NodeID], packetID: UInt32,
                      at t: Duration = .zero) throws -> [UInt8] {
        let payload = HelloPayload(publicKey: keyed ? neighbour.publicKeyBytes : nil, neighbours: listed.map { .init(id: $0, bucket: 3) })
        let header = MeshHeader(kind: .hello, origin: neighbour.nodeID, packetID: packetID, hopStart: 0,
                                expiresAtMinute: MeshHeader.expiryMinute(now: MachineBox.time(t).wall, lifetime: 600))
        return try sealer.seal(header: header, plaintext: payload.encoded())
    }

    /// Runs `box` for `periods` hello periods (5 min); one second into each, `neighbour` (if
    /// any) says hello as `theirs(period)` gives it (`nil`: nothing heard). Returns whether each
    /// of the box's own hellos carried its key, in order, with when it went out.
    static func timedHellos(_ box: inout MachineBox, periods: Int, neighbour: BoxKeyPair?,
                            theirs: (Int) -> (keyed: Bool, listsUs: Bool)?) throws -> [(at: Duration, keyed: Bool)] {
        var keyed: [(Duration, Bool)] = []
        var t = Duration.zero
        for period in 0..<periods {
            let start = Duration.seconds(300) * period
            if let neighbour, let said = theirs(period) {
                box.hear(try hello(from: neighbour, keyed: said.keyed, listing: said.listsUs ? [box.me] : [], packetID: UInt32(period + 1),
                                   at: start + .seconds(1)), at: start + .seconds(1))
            }
            t = max(t, start + .seconds(1))
            for (at, frame) in MeshNodeRepairTests.run(&box, from: t, until: start + .seconds(300)) {
                let (header, plaintext) = try sealer.open(frame.bytes)
                guard header.kind == .hello else { continue }
                keyed.append((at, try HelloPayload(decoding: plaintext).publicKey != nil))
            }
            t = start + .seconds(300)
        }
        return keyed
    }

    static func ownHellos(_ box: inout MachineBox, periods: Int, neighbour: BoxKeyPair?,
                          theirs: (Int) -> (keyed: Bool, listsUs: Bool)?) throws -> [Bool] {
        try timedHellos(&box, periods: periods, neighbour: neighbour, theirs: theirs).map(\.keyed)
    }

    @Test("a keyless hello from a box whose key is known refreshes it as a neighbour; from an unknown box it is dropped and counted")
    func keylessHelloNeedsAKnownKey() throws {
        var box = try MeshNodeCatchUpTests.started()
        let neighbour = BoxKeyPair()
        box.hear(try Self.hello(from: neighbour, keyed: false, listing: [box.me], packetID: 1), at: .seconds(1))
        #expect(box.counters.helloKeyUnknown == 1)
        #expect(box.machine.neighbours.isEmpty)
        box.hear(try Self.hello(from: neighbour, keyed: true, listing: [], packetID: 2), at: .seconds(2))
        #expect(box.machine.neighbours.map(\.id) == [neighbour.nodeID])
        #expect(box.machine.neighbours.first?.neighbours[box.me] == nil)
        box.hear(try Self.hello(from: neighbour, keyed: false, listing: [box.me], packetID: 3), at: .seconds(3))
        #expect(box.machine.neighbours.first?.neighbours[box.me] != nil, "the keyless hello's neighbour list was not taken")
        #expect(box.machine.neighbours.first?.publicKey == neighbour.publicKeyBytes)
        #expect(box.counters.helloKeyUnknown == 1 && box.counters.badHello == 0)
    }

    @Test("a box leaves its key out once every neighbour has sent a keyless hello, keyed every fourth; its first two hellos are keyed")
    func keylessAmongBoxesThatReadThem() throws {
        var box = try MeshNodeCatchUpTests.started(seed: 5)
        let neighbour = BoxKeyPair()
        let keyed = try Self.ownHellos(&box, periods: 12, neighbour: neighbour) { $0 == 0 ? (true, true) : (false, true) }
        try #require(keyed.count >= 10, "\(keyed)")
        // The box's first hello went out as it started (`started()`): these are its second on.
        #expect(keyed.first == true)
        for (i, carried) in keyed.enumerated().dropFirst() {
            let n = i + 1
            #expect(carried == (n % MeshNodeMachine<InMemoryNodeMemory>.keyedHelloEvery == 0), "hello \(n): \(keyed)")
        }
        #expect(box.counters.sentKeylessHellos == keyed.filter { !$0 }.count)
    }

    @Test("beside a box that only sends keyed hellos (an older build), every other hello is keyed: it never misses two periods of our hellos")
    func keyedEveryOtherBesideAnOlderBox() throws {
        for seed in UInt64(6)...10 {
            var box = try MeshNodeCatchUpTests.started(seed: seed)
            let hellos = try Self.timedHellos(&box, periods: 12, neighbour: BoxKeyPair()) { _ in (true, true) }
            let keyed = hellos.map(\.keyed)
            try #require(keyed.count >= 10, "\(keyed)")
            #expect(keyed.first == true)
            #expect(keyed.contains(false), "never keyless: boxes of this build would not learn it reads them")
            for n in 1..<keyed.count { #expect(keyed[n - 1] || keyed[n], "two keyless hellos in a row at \(n): \(keyed)") }
            // What the older box waits before forgetting a neighbour: three periods and their jitter.
            let standard = MeshRouterConfiguration.standard
            let forgetAfter = (standard.helloPeriod + standard.helloJitter) * standard.missedHellosBeforeExpiry
            let keyedTimes = hellos.filter(\.keyed).map(\.at)
            for (a, b) in zip(keyedTimes, keyedTimes.dropFirst()) {
                #expect(b - a <= (standard.helloPeriod + standard.helloJitter) * 2 && b - a < forgetAfter, "keyed hellos \(b - a) apart (seed \(seed))")
            }
        }
    }

    @Test("when a neighbour's hello starts leaving the box out, its next hellos carry the key, two more than otherwise; then it counts as a one-way link")
    func keyedForANeighbourThatLeavesUsOut() throws {
        let neighbour = BoxKeyPair()
        // The neighbour sends its key first, then keyless hellos; from period 4 on they leave us out.
        func run(deafFrom: Int) throws -> [(at: Duration, keyed: Bool)] {
            var box = try MeshNodeCatchUpTests.started(seed: 7)
            return try Self.timedHellos(&box, periods: 14, neighbour: neighbour) { ($0 == 0, $0 < deafFrom) }
        }
        let listening = try run(deafFrom: 99)
        let deaf = try run(deafFrom: 4)
        try #require(deaf.count >= 12 && listening.count >= 12, "\(deaf.map(\.keyed))")
        let first = try #require(deaf.firstIndex { $0.at > .seconds(1_200) })
        #expect(deaf[first].keyed && deaf[first + 1].keyed, "\(deaf.map(\.keyed))")
        let extra = deaf.filter(\.keyed).count - listening.filter(\.keyed).count
        #expect(extra >= 1 && extra <= 2, "\(deaf.map(\.keyed)) against \(listening.map(\.keyed))")
        #expect(deaf.suffix(4).contains { !$0.keyed }, "keyed for ever beside a one-way link: \(deaf.map(\.keyed))")
    }

    /// A box with 60-s hellos that hears a flood frame every 2 s (the channel over 25 % busy)
    /// for five hello periods, or nothing (`busy` false); returns when its hellos went on air,
    /// at which priority, and how many were queued at normal priority because the one before
    /// had not gone.
    static func hellosWhile(busy: Bool, promote: Bool) throws -> (sent: [(at: Duration, priority: TransmitPriority)], promoted: Int) {
        var box = try MachineBox(router: Self.shortHellos) { $0.hellosWaitOnePeriodAtMost = promote }
        let origin = BoxKeyPair()
        var sent: [(at: Duration, priority: TransmitPriority)] = []
        for i in 0..<150 {
            let at = Duration.seconds(2 * i)
            if busy {
                // hopStart 0: heard, never relayed; only the channel gets busy.
                box.hear(try MachineBox.frame(String(repeating: "x", count: 180), packetID: UInt32(i + 1), origin: origin), at: at)
            }
            // Time moves only with the frames heard (`MeshNodeCatchUpTests.drain` would skip
            // ahead past the background class's rechecks, to when the channel is quiet again).
            var t = at
            while t < at + .seconds(2) {
                let next = box.timer(at: t)
                var wake = next
                while true {
                    let (frame, until) = box.radioIdle(at: t)
                    guard let frame else {
                        wake = min(next, until ?? next)
                        break
                    }
                    if try MachineBox.kind(frame) == .hello { sent.append((t, frame.priority)) }
                }
                t = max(wake, t + .milliseconds(1))
            }
        }
        return (sent, box.counters.hellosPromoted)
    }

    /// The standard tuning with 60-s hellos (±6 s), so five periods take five minutes.
    static var shortHellos: MeshRouterConfiguration {
        var c = MeshRouterConfiguration.standard
        c.helloPeriod = .seconds(60)
        c.helloJitter = .seconds(6)
        return c
    }

    @Test("on a channel busy for five hello periods a hello still queued when the next is due gives way to it, at normal priority: one goes out at least every second period, where before only the first went; on a quiet channel every hello waits with the background frames")
    func hellosOnABusyChannel() throws {
        let period = Self.shortHellos.helloPeriod + Self.shortHellos.helloJitter
        let busy = try Self.hellosWhile(busy: true, promote: true)
        #expect(busy.sent.count >= 3 && busy.promoted >= 2, "\(busy)")
        #expect(busy.sent.dropFirst().allSatisfy { $0.priority == .normal }, "\(busy.sent)")
        let gaps = zip(busy.sent.dropFirst(), busy.sent).map { $0.at - $1.at }
        #expect(gaps.allSatisfy { $0 <= period * 2 + .seconds(5) }, "\(gaps)")
        #expect(Duration.seconds(300) - busy.sent.last!.at <= period * 2)

        let before = try Self.hellosWhile(busy: true, promote: false)
        #expect(before.sent.count == 1 && before.promoted == 0, "\(before)")

        let quiet = try Self.hellosWhile(busy: false, promote: true)
        #expect(quiet.sent.count >= 5 && quiet.promoted == 0, "\(quiet)")
        #expect(quiet.sent.allSatisfy { $0.priority == .background })
    }

    /// A box whose first hello waits out the router's spread (30 s), a neighbour heard before
    /// that hello and one after it, a third after the follow-up: the box's hellos up to 400 s
    /// (when, keyed, whom they list) and its full digests.
    static func startHellos(followUp: Bool) throws -> (hellos: [(at: Duration, keyed: Bool, listed: Set<NodeID>)], digests: [Duration], box: MachineBox, wake: Duration) {
        var router = MeshRouterConfiguration.standard
        router.firstHelloSpread = .seconds(30)
        router.helloFollowsUpStart = followUp
        let keyPair = try BoxKeyPair(rawPrivateKey: Array(repeating: 7, count: 32))
        var box = try MachineBox(keyPair: keyPair, router: router, seed: 1)
        let wake = box.timer(at: .zero)
        let (before, after, late) = (BoxKeyPair(), BoxKeyPair(), BoxKeyPair())
        box.hear(try hello(from: before, keyed: true, listing: [], packetID: 1, at: .seconds(1)), at: .seconds(1))
        var sent = MeshNodeRepairTests.run(&box, from: .seconds(1), until: wake + .milliseconds(500))
        box.hear(try hello(from: after, keyed: true, listing: [box.me], packetID: 1, at: wake + .milliseconds(500)), at: wake + .milliseconds(500))
        sent += MeshNodeRepairTests.run(&box, from: wake + .milliseconds(500), until: .seconds(70))
        box.hear(try hello(from: late, keyed: true, listing: [box.me], packetID: 1, at: .seconds(70)), at: .seconds(70))
        sent += MeshNodeRepairTests.run(&box, from: .seconds(70), until: .seconds(400))
        var hellos: [(at: Duration, keyed: Bool, listed: Set<NodeID>)] = []
        for (at, frame) in sent {
            let (header, plaintext) = try sealer.open(frame.bytes)
            guard header.kind == .hello else { continue }
            let payload = try HelloPayload(decoding: plaintext)
            hellos.append((at, payload.publicKey != nil, Set(payload.neighbours.map(\.id))))
        }
        return (hellos, try MeshNodeCatchUpTests.fullDigests(sent), box, wake)
    }

    @Test("boxes started together: after its first hello the box sends one more, with its key (a box switched on after the first lacks it), listing the neighbour heard since; the hello after it still carries the key, and a neighbour that lists the box after the follow-up still shares the start digest")
    func followUpHello() throws {
        let (hellos, digests, box, wake) = try Self.startHellos(followUp: true)
        try #require(wake + .milliseconds(500) < .seconds(30), "this key's first hello goes at \(wake)")
        try #require(hellos.count == 3, "\(hellos)")
        #expect(hellos[0].at == wake && hellos[0].keyed && hellos[0].listed.count == 1, "\(hellos)")
        #expect(hellos[1].at >= .seconds(30) && hellos[1].at <= .seconds(60), "\(hellos)")
        #expect(hellos[1].keyed && hellos[1].listed.count == 2, "the follow-up: with the key, both neighbours \(hellos)")
        #expect(hellos[2].keyed && hellos[2].at >= wake + .seconds(270), "the second counted hello carries the key \(hellos)")
        #expect(box.counters.followUpHellos == 1 && box.counters.sentKeylessHellos == 0)
        // The start digest only: the neighbour heard after the first hello, and the one heard
        // after the follow-up, list the box (they heard its first hello and the digest after it).
        #expect(digests == [wake], "\(digests)")
        let (without, withoutDigests, plain, _) = try Self.startHellos(followUp: false)
        #expect(without.map(\.keyed) == [true, true] && plain.counters.followUpHellos == 0, "\(without)")
        #expect(withoutDigests == [wake], "\(withoutDigests)")
    }
}
