import DriftMesh
import Testing
import TestSupport

@Suite struct SyncTests {
    static let x = NodeID(0x0000_0010)
    static let y = NodeID(0x0000_0020)

    static func keys(_ origin: NodeID, _ ids: [UInt32]) -> [PacketKey] {
        ids.map { PacketKey(origin: origin, packetID: $0) }
    }

    @Test func digestSummarisesRunsAndRoundTrips() throws {
        let held = Self.keys(Self.x, [1, 2, 3, 7, 8]) + Self.keys(Self.y, [100])
        let digest = SyncDigest(held: held)
        #expect(digest.complete)
        #expect(digest.runs == [.init(origin: Self.x, first: 1, last: 3), .init(origin: Self.x, first: 7, last: 8), .init(origin: Self.y, first: 100, last: 100)])
        #expect(try SyncDigest(decoding: digest.encoded()) == digest)
        #expect(digest.encoded().count == 3 + 10 * 3)
    }

    @Test func fullDigestFitsOneFrame() {
        let held = Self.keys(Self.x, stride(from: 0, to: 200, by: 2).map { UInt32($0) })
        let digest = SyncDigest(held: held)
        #expect(!digest.complete)
        #expect(digest.runs.count == SyncDigest.maxRanges)
        #expect(digest.encoded().count <= 190)
        // Newest runs first.
        #expect(digest.runs.last?.first == 198)
    }

    @Test("more origins than one digest describes: the origins described start at the rotation-th (wrapping), so successive rotations cover them all; fewer origins: the same digest whatever the rotation")
    func digestOriginsRotate() throws {
        let origins = (1...20).map { NodeID(UInt32($0) * 0x100) }
        let held = origins.flatMap { Self.keys($0, [1, 2]) }
        let listed = { (digest: SyncDigest) in Set(digest.runs.map(\.origin)) }
        let first = SyncDigest(held: held)
        #expect(!first.complete && listed(first) == Set(origins.prefix(SyncDigest.maxRanges)), "the lowest ids, as before")
        let fifth = SyncDigest(held: held, rotation: 5)
        #expect(listed(fifth) == Set(origins[5...] + origins[..<3]))
        #expect(SyncDigest(held: held, rotation: 25) == fifth && SyncDigest(held: held, rotation: -15) == fifth)
        #expect(try SyncDigest(decoding: fifth.encoded()) == fifth)
        // Every origin is described by some rotation; without one, two are never.
        #expect((0..<20).reduce(into: Set<NodeID>()) { $0.formUnion(listed(SyncDigest(held: held, rotation: $1))) } == Set(origins))
        // A missing packet of an origin left out is judged only when it is described.
        let mine = held + Self.keys(origins[19], [3])
        #expect(Reconciler.missing(held: mine, digest: first).isEmpty)
        #expect(Reconciler.missing(held: mine, digest: SyncDigest(held: held, rotation: 19)) == Self.keys(origins[19], [3]))
        // All origins fit: the rotation changes nothing.
        let few = Array(held.prefix(10))
        #expect(SyncDigest(held: few, rotation: 3) == SyncDigest(held: few) && SyncDigest(held: few).complete)
    }

    @Test func reconcilerFindsExactlyTheMissingKeys() {
        let mine = Set(Self.keys(Self.x, [1, 2, 3, 4, 5]) + Self.keys(Self.y, [10, 11]))
        let theirs = SyncDigest(held: Self.keys(Self.x, [1, 2, 4]) + Self.keys(Self.y, [11, 12]))
        #expect(Reconciler.missing(held: mine, digest: theirs) == Self.keys(Self.x, [3, 5]) + Self.keys(Self.y, [10]))
        #expect(Reconciler.wanted(held: mine, digest: theirs) == Self.keys(Self.y, [12]))
        #expect(Reconciler.missing(held: mine, digest: SyncDigest(held: mine)).isEmpty)
        #expect(Reconciler.missing(held: mine, digest: SyncDigest(held: [PacketKey]())) == mine.sorted())
    }

    @Test func incompleteDigestOnlyJudgesTheWindowItDescribes() {
        let theirs = SyncDigest(runs: [.init(origin: Self.x, first: 5, last: 6)], complete: false)
        let mine = Self.keys(Self.x, [1, 5, 7]) + Self.keys(Self.y, [1])
        #expect(Reconciler.missing(held: mine, digest: theirs) == Self.keys(Self.x, [7]))
    }

    @Test func wantedIsBoundedToOneRequest() throws {
        let theirs = SyncDigest(held: Self.keys(Self.x, Array(1...100)))
        let wanted = Reconciler.wanted(held: [], digest: theirs)
        #expect(wanted.count == SyncRequest.maxKeys)
        let request = SyncRequest(keys: wanted)
        #expect(request.encoded().count <= 190)
        #expect(try SyncRequest(decoding: request.encoded()) == request)
    }

    @Test func hostileDigestAndRequestBytes() async {
        #expect(throws: SyncDigest.DecodingError.truncated(expected: 3, actual: 1)) { try SyncDigest(decoding: [1]) }
        #expect(throws: SyncDigest.DecodingError.unsupportedVersion(2)) { try SyncDigest(decoding: [2, 0, 0]) }
        #expect(throws: SyncDigest.DecodingError.unknownFlags(2)) { try SyncDigest(decoding: [1, 2, 0]) }
        #expect(throws: SyncDigest.DecodingError.tooManyRuns(19)) { try SyncDigest(decoding: [1, 0, 19]) }
        #expect(throws: SyncDigest.DecodingError.truncated(expected: 13, actual: 4)) { try SyncDigest(decoding: [1, 0, 1, 0]) }
        #expect(throws: SyncDigest.DecodingError.trailingBytes(1)) { try SyncDigest(decoding: [1, 1, 0, 0]) }
        // A run whose span overflows the id space.
        #expect(throws: SyncDigest.DecodingError.self) { try SyncDigest(decoding: [1, 1, 1, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0, 1]) }
        #expect(throws: SyncRequest.DecodingError.tooManyKeys(24)) { try SyncRequest(decoding: [1, 24]) }
        #expect(throws: SyncRequest.DecodingError.truncated(expected: 10, actual: 3)) { try SyncRequest(decoding: [1, 1, 0]) }
        await runCPUBound {
            var rng = MeshRandom(seed: 7)
            for _ in 0..<2000 {
                let bytes = (0..<rng.int(in: 0...200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                _ = try? SyncDigest(decoding: bytes)
                _ = try? SyncRequest(decoding: bytes)
            }
        }
    }

    @Test func trickleFiresInSecondHalfSuppressesAndDoubles() {
        var t = TrickleTimer(minimumInterval: .seconds(10), doublings: 3, redundancy: 1, now: .zero, seed: 1)
        #expect(t.fireAt >= .seconds(5) && t.fireAt < .seconds(10))
        let early = t.due(now: .seconds(4))
        #expect(!early)
        let atFire = t.due(now: t.fireAt)
        #expect(atFire)
        let atEnd = t.due(now: .seconds(10))
        #expect(!atEnd)
        #expect(t.interval == .seconds(20))
        t.consistent()
        let suppressed = t.due(now: t.fireAt)
        #expect(!suppressed)  // k = 1 consistent digest heard
        _ = t.due(now: .seconds(70))
        _ = t.due(now: .seconds(200))
        #expect(t.interval == .seconds(80))  // capped at Imin · 2^3
        t.inconsistent(now: .seconds(200))
        #expect(t.interval == .seconds(10))
        #expect(t.fireAt >= .seconds(205) && t.fireAt < .seconds(210))
    }

    @Test func trickleSuppressionJudgesItsSenders() {
        var t = TrickleTimer(minimumInterval: .seconds(10), doublings: 3, redundancy: 2, now: .zero, seed: 1)
        let (a, b) = (NodeID(0xA), NodeID(0xB))
        t.consistent(from: a)
        t.consistent(from: b)
        #expect(t.consistentFrom == [a, b])
        var asked: Set<NodeID>?
        let sent = t.due(now: t.fireAt) { asked = $0; return false }
        #expect(sent, "k consistent digests heard, but their senders do not suppress it")
        #expect(asked == [a, b])
        // A new interval forgets them; k unnamed ones suppress when the judge agrees…
        _ = t.due(now: .seconds(10))
        #expect(t.consistentFrom.isEmpty)
        t.consistent()
        t.consistent()
        let kept = t.due(now: t.fireAt) { $0.isEmpty }
        #expect(!kept)
        // …and fewer than k send without asking it.
        _ = t.due(now: .seconds(30))
        t.consistent(from: a)
        var judged = false
        let few = t.due(now: t.fireAt) { _ in judged = true; return true }
        #expect(few && !judged)
    }

    /// Paced repair in a duty-cycled band asks for a longer ceiling while the box's budget is
    /// well used (`MeshNodeMachine.PacedRepair.longerAboveBudgetShare`), and for the timer's own
    /// again when it is not.
    @Test func trickleCeilingGivenPerCall() {
        var t = TrickleTimer(minimumInterval: .seconds(10), doublings: 2, redundancy: 1, now: .zero, seed: 1)
        #expect(t.maximumInterval == .seconds(40))
        var end = Duration.zero
        for _ in 0..<4 {
            end += t.interval
            _ = t.due(now: end, longest: .seconds(80))
        }
        #expect(t.interval == .seconds(80), "10, 20, 40, 80: one doubling past Imax")
        end += t.interval
        _ = t.due(now: end, longest: .seconds(80))
        #expect(t.interval == .seconds(80), "and no further")
        end += t.interval
        _ = t.due(now: end)
        #expect(t.interval == .seconds(40), "the timer's own ceiling again: the next interval is cut to it")
        end += t.interval
        _ = t.due(now: end, longest: .seconds(1))
        #expect(t.interval == .seconds(10), "never below Imin")
        let fired = t.due(now: t.fireAt, longest: .seconds(1))
        #expect(fired)
    }

    @Test func trickleMustSendIsNotSuppressedOnce() {
        var t = TrickleTimer(minimumInterval: .seconds(10), doublings: 3, redundancy: 1, now: .zero, seed: 1)
        // Already at Imin: the interval is not restarted, but the next transmission must go.
        t.inconsistent(now: .seconds(1), mustSend: true)
        #expect(t.interval == .seconds(10))
        t.consistent()
        t.consistent()
        let forced = t.due(now: t.fireAt)
        #expect(forced, "two consistent digests heard, yet it goes")
        #expect(!t.mustSend)
        // The next interval suppresses as usual.
        _ = t.due(now: .seconds(10))
        t.consistent()
        let next = t.due(now: t.fireAt)
        #expect(!next)
    }
}
