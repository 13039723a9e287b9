import Foundation
import TestSupport
import Testing
@testable import DriftDaemon

@Suite("driftd sim mesh prints the issue-19 fields")
struct SimMeshCommandTests {
    static let binaryBuilt = DriftdProcess.binaryPath != nil
    static let optimum = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../DriftMeshSimTests/Resources/mesh-optimum.json").standardized.path

    @Test("--router both --baseline-hop-limit 7 --json: both routers, hop limits, repair, airtime, optimum, reference-plan and loss fields",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func json() async throws {
        let run = try await DriftdProcess.runToCompletion(
            ["sim", "mesh", "--nodes", "10", "--seed", "7301", "--router", "both", "--baseline-hop-limit", "7", "--json", "--optimum", Self.optimum])
        #expect(run.status == 0, "\(run)")
        let objects = run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == 2)
        #expect(objects.map { $0["router"] as? String } == ["ours", "meshtastic"])
        #expect(objects.map { $0["hopLimit"] as? Int } == [7, 7])
        for object in objects {
            for key in ["connectedReachWithinRepairWindow", "totalAirtimeMs", "dataAirtimeMs", "shortIDCollisionShare",
                        "optimumFrames", "optimumUsefulness", "equalReachShare", "planTransmissions", "usefulnessBound",
                        "referencePlans", "usefulLosses"] {
                #expect(object[key] != nil, "missing \(key)")
            }
            // The literature's 2-hop schemes, each compared with the optimum as the router is.
            let plans = object["referencePlans"] as? [String: [String: Any]] ?? [:]
            #expect(Set(plans.keys) == ["multipointRelays", "partialDominantPruning", "partialDominantPruningAnyCopy", "ruleKBackbone"])
            #expect(plans.values.allSatisfy { $0["framesVsOptimum"] != nil || $0["equalReachShare"] as? Double == 0 })
        }
    }

    @Test("--paired-latency: both routers' median over the deliveries both made, the same count on both lines; the raw latencies are left out; only with --router both",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func pairedLatency() async throws {
        let run = try await DriftdProcess.runToCompletion(
            ["sim", "mesh", "--nodes", "10", "--seed", "7301", "--router", "both", "--baseline-hop-limit", "7", "--paired-latency", "--json"])
        #expect(run.status == 0, "\(run)")
        let objects = run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == 2)
        let counts = objects.map { $0["pairedDeliveries"] as? Int }
        #expect(counts[0] != nil && counts[0] == counts[1])
        #expect(objects.allSatisfy { $0["pairedLatencyP50Ms"] is Double && $0["receptionLatenciesMs"] == nil })
        let refused = try await DriftdProcess.runToCompletion(["sim", "mesh", "--router", "ours", "--paired-latency"])
        #expect(refused.status != 0, "--paired-latency without --router both was accepted")
    }

    @Test("--node-machine --directed-share: our boxes run the daemon's node; its fields are in the JSON, the baseline's are not",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func nodeMachine() async throws {
        let run = try await DriftdProcess.runToCompletion(
            ["sim", "mesh", "--nodes", "8", "--seed", "5", "--messages", "6", "--router", "both", "--node-machine", "--directed-share", "0.5", "--json"])
        #expect(run.status == 0, "\(run)")
        let objects = run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == 2)
        #expect(objects.first?["nodeMachine"] as? Bool == true)
        for key in ["directedMessages", "outboxRetries", "catchUpFrames", "floodDataAirtimeMs", "fullDigestTransmissions", "fullDigestAirtimeMs"] {
            #expect(objects.first?[key] != nil, "missing \(key)")
        }
        #expect(objects.last?["nodeMachine"] == nil)
        let refused = try await DriftdProcess.runToCompletion(["sim", "mesh", "--directed-share", "0.5"])
        #expect(refused.status != 0, "--directed-share without --node-machine was accepted")
    }

    @Test("--look-slots: our boxes' looks on a busy channel and quiet back-off draw 1…4 slots by default, as the daemon's listen before talk; 8 (the rule before) runs otherwise; 0 is refused",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func lookSlots() async throws {
        #expect(MeshService.lookSlotsAtMost == 4)
        func run(_ extra: [String]) async throws -> String {
            let run = try await DriftdProcess.runToCompletion(
                ["sim", "mesh", "--nodes", "20", "--seed", "7301", "--router", "ours", "--json"] + extra)
            #expect(run.status == 0, "\(run)")
            return run.stdout
        }
        let byDefault = try await run([])
        #expect(try await run(["--look-slots", "\(MeshService.lookSlotsAtMost)"]) == byDefault)
        #expect(try await run(["--look-slots", "8"]) != byDefault)
        let refused = try await DriftdProcess.runToCompletion(["sim", "mesh", "--look-slots", "0"])
        #expect(refused.status != 0, "--look-slots 0 was accepted")
    }

    @Test("--relays-redraw-when-busy: our relays re-draw their planned delay on a busy channel (off by default, measured and not kept); the baseline is untouched; refused with --node-machine; --relays-redraw-step-slots changes the run, 0, 65 and without the flag refused",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func relaysRedrawWhenBusy() async throws {
        func run(_ extra: [String]) async throws -> String {
            let run = try await DriftdProcess.runToCompletion(["sim", "mesh", "--nodes", "20", "--seed", "7301", "--json"] + extra)
            #expect(run.status == 0, "\(run)")
            return run.stdout
        }
        #expect(try await run(["--router", "ours", "--relays-redraw-when-busy"]) != (try await run(["--router", "ours"])))
        #expect(try await run(["--router", "meshtastic", "--relays-redraw-when-busy"]) == (try await run(["--router", "meshtastic"])))
        let refused = try await DriftdProcess.runToCompletion(["sim", "mesh", "--node-machine", "--relays-redraw-when-busy"])
        #expect(refused.status != 0, "--relays-redraw-when-busy with --node-machine was accepted")
        let redraw = try await run(["--router", "ours", "--relays-redraw-when-busy"])
        #expect(try await run(["--router", "ours", "--relays-redraw-when-busy", "--relays-redraw-step-slots", "4"]) != redraw)
        for bad in [["--relays-redraw-when-busy", "--relays-redraw-step-slots", "0"], ["--relays-redraw-when-busy", "--relays-redraw-step-slots", "65"],
                    ["--relays-redraw-step-slots", "4"]] {
            let run = try await DriftdProcess.runToCompletion(["sim", "mesh", "--router", "ours"] + bad)
            #expect(run.status != 0, "\(bad) was accepted")
        }
    }

    @Test("--repair-longer-above-budget: the node's repair intervals double once more past half the airtime budget by default, in a 1 % band only; --no-repair-longer-above-budget is the rule before; 0, 2 and both flags together are refused",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func repairLongerAboveBudget() async throws {
        func run(_ extra: [String]) async throws -> String {
            let run = try await DriftdProcess.runToCompletion(
                ["sim", "mesh", "--nodes", "20", "--seed", "7301", "--period", "1000", "--messages", "40", "--router", "ours",
                 "--node-machine", "--json"] + extra)
            #expect(run.status == 0, "\(run)")
            return run.stdout
        }
        let dutyCycled = try await run(["--duty-cycle", "1"])
        #expect(try await run(["--duty-cycle", "1", "--repair-longer-above-budget", "0.5"]) == dutyCycled)
        #expect(try await run(["--duty-cycle", "1", "--no-repair-longer-above-budget"]) != dutyCycled)
        // No budget limit (the US band): nothing has used a share of it.
        #expect(try await run(["--no-repair-longer-above-budget"]) == (try await run([])))
        for bad in [["--repair-longer-above-budget", "0"], ["--repair-longer-above-budget", "2"],
                    ["--repair-longer-above-budget", "0.5", "--no-repair-longer-above-budget"]] {
            let refused = try await DriftdProcess.runToCompletion(["sim", "mesh", "--node-machine"] + bad)
            #expect(refused.status != 0, "\(bad) was accepted")
        }
    }

    @Test("--burst-every-s with --burst-length-s: the same messages bunched change the run; either alone, a burst longer than its period or of 0 s is refused",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func bursts() async throws {
        func run(_ extra: [String]) async throws -> [String: Any] {
            let run = try await DriftdProcess.runToCompletion(
                ["sim", "mesh", "--nodes", "20", "--seed", "7301", "--period", "1000", "--messages", "40", "--router", "ours", "--json"] + extra)
            #expect(run.status == 0, "\(run)")
            return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        }
        let flat = try await run([]), bursty = try await run(["--burst-every-s", "1800", "--burst-length-s", "60"])
        #expect(flat["messages"] as? Int == 40 && bursty["messages"] as? Int == 40)
        let flatCollisions = try #require(flat["collisions"] as? Int), burstCollisions = try #require(bursty["collisions"] as? Int)
        #expect(burstCollisions > flatCollisions, "40 messages within a minute collide more: \(burstCollisions) against \(flatCollisions)")
        for bad in [["--burst-every-s", "600"], ["--burst-length-s", "60"], ["--burst-every-s", "60", "--burst-length-s", "120"],
                    ["--burst-every-s", "600", "--burst-length-s", "0"]] {
            let refused = try await DriftdProcess.runToCompletion(["sim", "mesh"] + bad)
            #expect(refused.status != 0, "\(bad) was accepted")
        }
    }

    @Test("--compact-digest-hashes16: the node's compact digests as 16-bit hashes, the coding before, take more airtime than the Rice-coded default; the router's own repair model is the same either way",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func compactDigestHashes16() async throws {
        func run(_ extra: [String]) async throws -> [String: Any] {
            let run = try await DriftdProcess.runToCompletion(
                ["sim", "mesh", "--nodes", "20", "--seed", "7301", "--router", "ours", "--json"] + extra)
            #expect(run.status == 0, "\(run)")
            return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        }
        let rice = try await run(["--node-machine"]), hashes16 = try await run(["--node-machine", "--compact-digest-hashes16"])
        let riceDigests = try #require(rice["digestAirtimeMs"] as? Double), hashes16Digests = try #require(hashes16["digestAirtimeMs"] as? Double)
        #expect(riceDigests < hashes16Digests, "\(riceDigests) ms against \(hashes16Digests) ms")
        let model = try await run([]), modelFlagged = try await run(["--compact-digest-hashes16"])
        #expect(model["totalAirtimeMs"] as? Double == modelFlagged["totalAirtimeMs"] as? Double)
    }

    @Test("--digest-repeats-for-neighbours-in-repair: the node's full digest repeated whatever compact digests came, the rule before, sends more full digests after the boxes' start",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func digestRepeatsForNeighboursInRepair() async throws {
        func fullDigests(_ extra: [String]) async throws -> Int {
            let run = try await DriftdProcess.runToCompletion(
                ["sim", "mesh", "--nodes", "20", "--seed", "7301", "--router", "ours", "--node-machine", "--warm-up-s", "1800",
                 "--warm-up-at-daemon-pace", "--start-spread-s", "1200", "--json"] + extra)
            #expect(run.status == 0, "\(run)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            return try #require(object["fullDigestTransmissions"] as? Int)
        }
        let left = try await fullDigests([]), repeated = try await fullDigests(["--digest-repeats-for-neighbours-in-repair"])
        #expect(left < repeated, "\(left) full digests against \(repeated)")
    }

    @Test("--snr-jitter-floor: 1 turns the SNR weighting off (a later median at low load), 0 and 2 are refused",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func snrJitterFloor() async throws {
        func p50(_ extra: [String]) async throws -> Double {
            let run = try await DriftdProcess.runToCompletion(
                ["sim", "mesh", "--nodes", "30", "--seed", "1", "--period", "2000", "--router", "ours", "--json"] + extra)
            #expect(run.status == 0, "\(run)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            return try #require(object["latencyP50Ms"] as? Double)
        }
        let weighted = try await p50([]), flat = try await p50(["--snr-jitter-floor", "1"])
        #expect(weighted < flat - 500, "weighted \(weighted) ms, flat \(flat) ms")
        #expect(try await p50(["--snr-jitter-floor", "0.125"]) == weighted)
        for bad in ["0", "2"] {
            let refused = try await DriftdProcess.runToCompletion(["sim", "mesh", "--snr-jitter-floor", bad])
            #expect(refused.status != 0, "--snr-jitter-floor \(bad) was accepted")
        }
    }

    @Test("--export-topology prints links and origins per seed", .enabled(if: binaryBuilt, "driftd binary not built"))
    func export() async throws {
        let run = try await DriftdProcess.runToCompletion(["sim", "mesh", "--export-topology", "--nodes", "10", "--seed", "7301", "--seeds", "2"])
        #expect(run.status == 0, "\(run)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["nodes"] as? Int == 10 && first["seed"] as? Int == 7301)
        #expect((first["links"] as? [[Int]])?.isEmpty == false)
        #expect((first["origins"] as? [Int])?.count == 20)
    }

    @Test("repair fields for our router only; --preamble shortens our frames; contradictory counter flags are refused",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func repairAndFrames() async throws {
        func runs(_ extra: [String]) async throws -> [[String: Any]] {
            let run = try await DriftdProcess.runToCompletion(["sim", "mesh", "--nodes", "10", "--seed", "7301", "--router", "both", "--json"] + extra)
            #expect(run.status == 0, "\(run)")
            return run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        let plain = try await runs([])
        #expect(plain.count == 2)
        for key in ["digestTransmissions", "digestAirtimeMs", "repairTransmissions", "repairsRelayed", "repairsWasted"] {
            #expect(plain.first?[key] != nil, "missing \(key)")
            #expect(plain.last?[key] == nil, "the baseline has no repair, yet \(key)")
        }
        let short = try await runs(["--preamble", "8"])
        func airtimePerFrame(_ object: [String: Any]?) -> Double {
            ((object?["dataAirtimeMs"] as? Double) ?? 0) / (((object?["transmissionsPerBroadcast"] as? Double) ?? 1) * Double((object?["messages"] as? Int) ?? 1))
        }
        // 56-byte frames at LongFast: 682 ms with 16 preamble symbols, 8 × 8.192 ms less with 8.
        #expect(abs(airtimePerFrame(plain.first) - 682.0) < 1)
        #expect(abs(airtimePerFrame(short.first) - (682.0 - 8 * 8.192)) < 1)
        #expect(abs(airtimePerFrame(short.last) - 682.0) < 1, "the baseline keeps LongFast's preamble")
        let refused = try await DriftdProcess.runToCompletion(["sim", "mesh", "--cancel-only-when-busy", "--cancel-always"])
        #expect(refused.status != 0, "contradictory counter flags were accepted")
    }

    @Test("--[no-]repair-lacking-unsuppressed: on by default for the router-only repair (more digests at 30 boxes), off with --no-…",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func lackingUnsuppressed() async throws {
        func digests(_ extra: [String]) async throws -> Int {
            let run = try await DriftdProcess.runToCompletion(
                ["sim", "mesh", "--nodes", "30", "--seed", "1", "--router", "ours", "--json"] + extra)
            #expect(run.status == 0, "\(run)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
            return try #require(object["digestTransmissions"] as? Int)
        }
        let byDefault = try await digests([])
        #expect(try await digests(["--repair-lacking-unsuppressed"]) == byDefault)
        let off = try await digests(["--no-repair-lacking-unsuppressed"])
        #expect(off < byDefault, "digests: \(off) with --no-repair-lacking-unsuppressed, \(byDefault) by default")
    }

    @Test("--air-rate-kbps: our boxes on the E22's modulation; with the link budget and area scaled the mesh keeps its shape; bad rates and the baseline are refused",
          .enabled(if: binaryBuilt, "driftd binary not built"))
    func e22AirRate() async throws {
        func run(_ extra: [String]) async throws -> [String: Any] {
            let run = try await DriftdProcess.runToCompletion(["sim", "mesh", "--nodes", "20", "--seed", "7301", "--router", "ours", "--no-repair", "--json"] + extra)
            #expect(run.status == 0, "\(run)")
            return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        }
        func airtimePerFrame(_ object: [String: Any]) -> Double {
            ((object["dataAirtimeMs"] as? Double) ?? 0) / (((object["transmissionsPerBroadcast"] as? Double) ?? 1) * Double((object["messages"] as? Int) ?? 1))
        }
        let longFast = try await run([])
        // 13 dBm at 868.125 MHz and SF9's −129.5 dBm: 19 dB less link budget than 30 dBm at
        // LongFast's −131.5 dBm, 0.7 dB of it won back by the lower carrier; the suburban model
        // loses 44.9 dB a decade, so distances shrink 2.554-fold (docs/mesh-simulation.md).
        let e22 = try await run(["--air-rate-kbps", "2.4", "--tx-power-dbm", "13", "--frequency-mhz", "868.125", "--area", "5872"])
        #expect(abs(airtimePerFrame(longFast) - 682.0) < 1)
        #expect(abs(airtimePerFrame(e22) - 349.2) < 1, "56-byte frames at SF9, 125 kHz, 8 preamble symbols")
        #expect(e22["meanDegree"] as? Double == longFast["meanDegree"] as? Double, "the same mesh, scaled")
        let unscaled = try await run(["--air-rate-kbps", "2.4", "--tx-power-dbm", "13"])
        #expect(((unscaled["meanDegree"] as? Double) ?? 99) < ((longFast["meanDegree"] as? Double) ?? 0),
                "19 dB less link budget on the same area: fewer neighbours")
        for bad in [["--air-rate-kbps", "3"], ["--air-rate-kbps", "2.4", "--router", "both"], ["--air-rate-kbps", "2.4", "--preamble", "12"]] {
            let refused = try await DriftdProcess.runToCompletion(["sim", "mesh", "--router", "ours"] + bad)
            #expect(refused.status != 0, "\(bad) was accepted")
        }
    }
}
