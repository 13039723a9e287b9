import DriftMesh
import DriftMeshSim
import Testing

/// `SimParameters.relaysRedrawWhenBusy` (off by default, measured and not kept): a relay of another
/// box's data that finds the channel busy re-draws its planned delay, as Meshtastic's firmware does,
/// instead of looking again 1…`lookSlots` slots later (docs/mesh-simulation.md, "Relays that
/// re-draw their delay on a busy channel").
@Suite struct RelayRedrawTests {
    static let a = NodeID(0xA0A0_A0A1)
    static let b = NodeID(0xB0B0_B0B2)
    static let c = NodeID(0xC0C0_C0C3)
    static let d = NodeID(0xD0D0_D0D4)
    static let e = NodeID(0xE0E0_E0E5)
    static let f = NodeID(0xF0F0_F0F6)
    static let key = [UInt8](repeating: 7, count: 32)
    static let link = LinkQuality(rssi: -100, snr: 5)
    static let packet = MeshHeader(kind: .broadcast, origin: a, packetID: 9, hopStart: 3, expiresAtMinute: 100)

    /// A's copy reached B and C; B alone reaches D, C alone reaches E and F: C leads, B waits one
    /// rank step. 1 ms slots: a rank step is 100 ms, B's jitter up to 35 ms (50 scaled by SNR 5),
    /// the leader's up to 10 ms.
    static func router(_ me: NodeID, redraw: Bool, stepSlots: Int? = nil) -> MeshRouter {
        var config = MeshRouterConfiguration(helloPeriod: .seconds(60), helloJitter: .zero, slot: .milliseconds(1), jitterSlots: 50, slotsPerRank: 100)
        config.neighbourLearningPeriod = .zero  // handed its whole table at once
        config.leaderJitterSlots = 10
        config.redrawRelayDelayWhenBusy = redraw
        config.redrawRankStepSlots = stepSlots
        let table: [NodeID: [NodeID]] = me == b
            ? [a: [b, c], c: [a, b, e, f], d: [b]]
            : [a: [b, c], b: [a, c, d], e: [c], f: [c]]
        var r = MeshRouter(me: me, configuration: config, seed: 42)
        _ = r.due(now: .zero)
        for (n, list) in table.sorted(by: { $0.key < $1.key }) {
            _ = r.heardHello(from: n, payload: HelloPayload(publicKey: key, neighbours: list.map { .init(id: $0, bucket: 3) }),
                             link: link, now: .zero)
        }
        return r
    }

    /// Hears A's copy at 10 s and lets the relay come due: it is handed out (queued for a clear
    /// channel); returns when.
    static func relayDue(_ r: inout MeshRouter) throws -> Duration {
        _ = r.heard(packet, link: link, firstTime: true, now: .seconds(10))
        let due = try #require(r.nextDeadline)
        let actions = r.due(now: due)
        #expect(actions == [.transmit(packet.relayed(by: r.me), powerDbm: nil)])
        return due
    }

    @Test func aRelayOnABusyChannelRedrawsItsPlannedDelay() throws {
        var b = Self.router(Self.b, redraw: true), c = Self.router(Self.c, redraw: true)
        let atB = try Self.relayDue(&b), atC = try Self.relayDue(&c)
        var waits: Set<Duration> = []
        for _ in 0..<40 {
            // Through the simulator's hook (`SimRouting.channelBusyDelay`).
            let behind = b.channelBusyDelay(for: Self.packet.relayed(by: Self.b), now: atB)
            let ahead = c.channelBusyDelay(for: Self.packet.relayed(by: Self.c), now: atC)
            let late = try #require(behind), first = try #require(ahead)
            #expect(late >= .milliseconds(100) && late <= .milliseconds(135), "B keeps its rank step: \(late)")
            #expect(first <= .milliseconds(10), "C keeps the lead: \(first)")
            waits.insert(late)
        }
        #expect(waits.count > 5, "the jitter is drawn afresh: \(waits)")
        // A copy heard meanwhile (D's, which covers B's only uncovered neighbour) still cancels it.
        let fromD = Self.packet.relayed(by: Self.c).relayed(by: Self.d)
        let actions = b.heard(fromD, link: Self.link, firstTime: false, now: atB + .milliseconds(50))
        #expect(actions == [.cancelled(Self.packet.key)])
        let afterCancel = b.channelBusyDelay(for: Self.packet.relayed(by: Self.b), now: atB + .milliseconds(60))
        #expect(afterCancel == nil)
    }

    /// `redrawRankStepSlots`: the re-draw's rank step is that many slots (2 here, not 100); the
    /// jitter is drawn as before, and the planned delay itself keeps the full step.
    @Test func aShorterRedrawStepKeepsTheOrderAndTheJitter() throws {
        var b = Self.router(Self.b, redraw: true, stepSlots: 2), c = Self.router(Self.c, redraw: true, stepSlots: 2)
        let atB = try Self.relayDue(&b), atC = try Self.relayDue(&c)
        #expect(atB - .seconds(10) >= .milliseconds(100), "B's planned delay keeps the full rank step: \(atB)")
        var waits: Set<Duration> = []
        for _ in 0..<40 {
            let behind = b.channelBusyDelay(for: Self.packet.relayed(by: Self.b), now: atB)
            let ahead = c.channelBusyDelay(for: Self.packet.relayed(by: Self.c), now: atC)
            let late = try #require(behind), first = try #require(ahead)
            #expect(late >= .milliseconds(2) && late <= .milliseconds(37), "B: one step of 2 slots and 0…35: \(late)")
            #expect(first <= .milliseconds(10), "C keeps the lead: \(first)")
            waits.insert(late)
        }
        #expect(waits.count > 5, "the jitter is drawn afresh: \(waits)")
        #expect(waits.contains { $0 < .milliseconds(10) }, "below the full step's 100 ms: \(waits)")
    }

    @Test func offOrOwnFramesLeaveTheSimulatorsLooks() throws {
        // Off (the default): `nil`, so the simulator looks again 1…lookSlots slots later.
        #expect(!MeshRouterConfiguration.standard.redrawRelayDelayWhenBusy)
        #expect(!SimParameters(nodes: 10, seed: 1, router: .ours).relaysRedrawWhenBusy)
        var off = Self.router(Self.b, redraw: false)
        let due = try Self.relayDue(&off)
        let looks = off.channelBusyDelay(for: Self.packet.relayed(by: Self.b), now: due)
        #expect(looks == nil)
        // On: the box's own frames look again as before.
        var on = Self.router(Self.b, redraw: true)
        let own = MeshHeader(kind: .broadcast, origin: Self.b, packetID: 3, hopStart: 3, expiresAtMinute: 100)
        _ = on.originate(own, now: .seconds(1))
        let ownWait = on.channelBusyDelay(for: own, now: .seconds(1))
        #expect(ownWait == nil)
    }

    /// The parameter reaches our router's boxes (with carrier sense) and leaves the baseline alone.
    @Test func theSimulatorPassesItToOurRouter() async {
        func run(_ router: SimRouterKind, redraw: Bool) async -> SimResult {
            var p = SimParameters(nodes: 20, seed: 1, router: router)
            p.relaysRedrawWhenBusy = redraw
            return await simulate(p)
        }
        let looks = await run(.ours, redraw: false), redraws = await run(.ours, redraw: true)
        #expect(looks != redraws)
        let baseline = await run(.meshtastic, redraw: false), baselineRedraw = await run(.meshtastic, redraw: true)
        #expect(baseline == baselineRedraw)
    }
}
