import DriftMesh
import DriftMeshSim
import Foundation
import Testing

/// A box's own time on air in the simulator (`SimResult.txDutyMean`, `txDutyMax`) and the
/// daemon's airtime budget in the node machine (`SimParameters.dutyCycle`, `--duty-cycle`).
@Suite("Simulator: each box's transmit duty")
struct TransmitDutyTests {
    typealias Sent = [(start: Int64, airUs: Int64)]

    @Test("the busiest window: cut transmissions count with their part inside; a frame longer than the window fills it")
    func busiestWindowByHand() {
        #expect(TransmitDuty.busiestWindow([], window: 100) == 0)
        // From 0: 10 + 10 + 5 of the frame at 95…105.
        #expect(TransmitDuty.busiestWindow([(0, 10), (50, 10), (95, 10)], window: 100) == 25)
        #expect(TransmitDuty.busiestWindow([(0, 10), (1_000, 30)], window: 100) == 30)
        #expect(TransmitDuty.busiestWindow([(0, 200)], window: 100) == 100)
        #expect(TransmitDuty.busiestWindow([(0, 200), (300, 50)], window: 100) == 100)
    }

    /// Against the definition: every window start on a 1 µs grid, overlaps summed.
    @Test("the busiest window equals a brute-force sweep over every start, on 300 random schedules")
    func busiestWindowMatchesSweep() {
        var rng = MeshRandom(seed: 19)
        for _ in 0..<300 {
            var sent: Sent = []
            var t = Int64(rng.int(in: 0...20))
            for _ in 0..<rng.int(in: 0...12) {
                let air = Int64(rng.int(in: 1...40))
                sent.append((t, air))
                t += air + Int64(rng.int(in: 0...60))
            }
            let window = Int64(rng.int(in: 1...150))
            var sweep: Int64 = 0
            for start in -window...(t + 1) {
                let inside = sent.reduce(Int64(0)) { sum, s in
                    sum + max(0, min(start + window, s.start + s.airUs) - max(start, s.start))
                }
                sweep = max(sweep, inside)
            }
            #expect(TransmitDuty.busiestWindow(sent, window: window) == sweep, "\(sent) window \(window)")
        }
    }

    /// Two boxes in range; box 0 sends a broadcast every 10 s for 15 minutes: about 90 frames
    /// of ~0.6 s, over 50 s on air in the hour, where a 1 % budget allows 36 s (32.4 s outside
    /// the emergency reserve).
    static func busySender(dutyCycle: Double?) -> SimParameters {
        let script = (0..<90).map { SimMessage(at: .seconds(10 * $0 + 5), from: 0) }
        var p = NodeMachineSimulationTests.parameters([(0, 0), (1_000, 0)], script: script)
        p.dutyCycle = dutyCycle
        return p
    }

    @Test("a 1 % budget holds the busiest box to 1 % of the hour, near its limit; without it the same box sends more and reaches more")
    func dutyCycleCapsTheBusiestBox() async throws {
        let runs = await simulate([Self.busySender(dutyCycle: nil), Self.busySender(dutyCycle: 0.01)])
        let free = runs[0], capped = runs[1]
        let freeMax = try #require(free.txDutyMax), cappedMax = try #require(capped.txDutyMax)
        #expect(freeMax > 0.012, "the scenario must exceed the budget to test it: \(freeMax)")
        #expect(cappedMax <= 0.01, "\(cappedMax)")
        // The budget is used up to its non-emergency 0.9 %, less what the warm-up's hellos took
        // (they count in the budget, not in the figure).
        #expect(cappedMax > 0.006, "\(cappedMax)")
        #expect(capped.reachability < free.reachability)
        #expect(try #require(free.txDutyMean) > 0)
    }

    @Test("the time the budget held frames back is reported under a duty cycle, and falls on the box that relays: A's burst across the line A–B–C holds B back as it holds A")
    func budgetHeldWhereTheRelayingIs() async throws {
        let script = (0..<90).map { SimMessage(at: .seconds(10 * $0 + 5), from: 0) }
        var p = NodeMachineSimulationTests.parameters(Array(NodeMachineSimulationTests.line.prefix(3)), script: script)
        let free = await simulate(p)
        #expect(free.budgetHeldForegroundS == nil && free.boxesHeldByBudget == nil && free.budgetHeldTopRelayersS == nil)
        p.dutyCycle = 0.01
        let capped = await simulate(p)
        let foreground = try #require(capped.budgetHeldForegroundS), background = try #require(capped.budgetHeldBackgroundS)
        // A's own messages and B's relays of them wait for most of the run (the burst lasts 15
        // minutes, the budget frees only as the first hour's frames age out).
        #expect(foreground > 600, "\(foreground)")
        #expect(background >= 0)
        #expect(capped.boxesHeldByBudget == 2, "A and B, not C, which relays nothing: \(String(describing: capped.boxesHeldByBudget))")
        // B is the fifth that relays most; A (held) and C (not) are the others.
        let relayer = try #require(capped.budgetHeldTopRelayersS), others = try #require(capped.budgetHeldOtherBoxesS)
        #expect(relayer > others, "B \(relayer) s, A and C \(others) s on average")
        #expect(relayer > 300)
    }

    /// A diamond: A's floods reach C through B or E, and the plan names one of them. Under a
    /// 1 % budget A's burst holds that relay in its queue while the other, outside the plan,
    /// fills in; a copy heard before the relay turned late took nothing back, so the relay went
    /// out once the budget let it, for nobody. Checked when the radio is free, it is dropped.
    @Test("under a duty cycle a late planned relay whose neighbours copies covered before it turned late is dropped when the radio is free: fewer data frames and less time held, about as many boxes reached; nothing without the check")
    func lateRelaysTakenBackWhenTheRadioIsFree() async throws {
        let diamond: [(x: Double, y: Double)] = [(0, 0), (1_000, 400), (1_000, -400), (2_200, 0)]
        // A and C take turns: the planned relay between them carries both bursts, twice what
        // either origin sends, and its budget runs out first.
        // One more from A an hour and a half on keeps the run going until the budgets free.
        let script = (0..<120).map { SimMessage(at: .seconds(8 * $0 + 5), from: $0 % 2 == 0 ? 0 : 3) }
            + [SimMessage(at: .seconds(5_400), from: 0)]
        var p = NodeMachineSimulationTests.parameters(diamond, script: script)
        p.ourConfiguration.topologyPlan = true
        // Late after 30 s: the box outside the plan fills in some 15 s after A's frame at
        // LongFast (12 rank steps), before the held relay turns late, and no copy comes after.
        p.ourConfiguration.topologyPlannedRelayLateAfter = .seconds(30)
        p.dutyCycle = 0.01
        p.implicitAckRetryJitter = 0  // as measured: before the implicit-ack retry was drawn (issue 19, 2026-12-08)
        var before = p
        before.ourConfiguration.topologyPlannedRelayLateCheckedBeforeSending = false
        let runs = await simulate([p, before])
        let (checked, unchecked) = (runs[0], runs[1])
        let takenBack = try #require(checked.lateRelaysTakenBack)
        #expect(takenBack > 0, "\(NodeMachineSimulationTests.json(checked))")
        #expect(unchecked.lateRelaysTakenBack == 0)
        #expect((checked.plannedRelays ?? 0) > 0)
        #expect(checked.transmissionsPerBroadcast < unchecked.transmissionsPerBroadcast,
                "\(checked.transmissionsPerBroadcast) data frames per broadcast against \(unchecked.transmissionsPerBroadcast)")
        #expect(try #require(checked.budgetHeldForegroundS) < #require(unchecked.budgetHeldForegroundS), "the budget holds the flood less")
        #expect(checked.reachability >= unchecked.reachability - 0.01, "\(checked.reachability) against \(unchecked.reachability)")
    }

    @Test("both routers report the duty; the busiest box's hour holds at least the mean box's share of a run longer than an hour")
    func routersReportDuty() async throws {
        for kind in [SimRouterKind.ours, .meshtastic] {
            var p = SimParameters(nodes: 12, seed: 5, router: kind, messages: 40)
            p.periodPerNode = .seconds(1_200)
            let r = await simulate(p)
            let mean = try #require(r.txDutyMean), busiest = try #require(r.txDutyMax)
            #expect(mean > 0)
            #expect(busiest >= mean, "\(kind): \(busiest) < \(mean)")
        }
    }
}
