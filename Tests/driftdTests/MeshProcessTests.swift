import DriftSystem
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Three `driftd run` processes on the simulated radio, in a line: A — B — C, 800 m apart
/// with a 1 km range, so A and C cannot hear each other and everything goes through B.
@Suite("Mesh: three driftd processes on the simulated radio")
struct MeshProcessTests {
    static let binaryBuilt = DriftdProcess.binaryPath != nil

    /// One box of the line: its config file, data directory and radio port.
    struct Box {
        var name: String
        var directory: String
        var data: String { directory + "/data" }
        var config: String { directory + "/driftd.toml" }
        var port: Int
        var eastMetres: Double
    }

    /// Boxes A, B and C in a line, 800 m apart, in `directory`, on `ports`.
    static func line(in directory: TemporaryDirectory, ports: [Int]) -> [Box] {
        zip(["A", "B", "C"], zip(ports, [0.0, 800, 1_600])).map { name, rest in
            Box(name: name, directory: directory.appending(name), port: rest.0, eastMetres: rest.1)
        }
    }

    /// Free UDP ports on loopback for the boxes' radios (``LoopbackPorts``).
    static func freePorts(_ count: Int) throws -> [Int] {
        try LoopbackPorts.take(count)
    }

    static func writeConfig(_ box: Box, peers: [Int], topologyPlan: Bool = false) throws {
        let longitude = 13.4019 + box.eastMetres / (111_320 * cos(52.4731 * Double.pi / 180))
        var text = try String(contentsOfFile: DriftdProcess.checkout + "/board/sim.toml", encoding: .utf8)
        text = text.replacingOccurrences(of: "name = \"Drift Box (simulated)\"", with: "name = \"Box \(box.name)\"")
        text = text.replacingOccurrences(of: "longitude = 13.4019", with: "longitude = \(longitude)")
        text = text.replacingOccurrences(of: "radio_udp_port = 47300", with: "radio_udp_port = \(box.port)")
        text = text.replacingOccurrences(of: "radio_peers = []", with: "radio_peers = [\(peers.map { "\"127.0.0.1:\($0)\"" }.joined(separator: ", "))]")
        text = text.replacingOccurrences(of: "radio_range_m = 0 ", with: "radio_range_m = 1000 ")
        text = text.replacingOccurrences(of: "# hello_interval_s = 300 ", with: "hello_interval_s = 3 ")
        try #require(text.contains("\nhello_interval_s = 3 "), "board/sim.toml's hello line changed: the boxes would say hello every 300 s")
        if topologyPlan {
            text = text.replacingOccurrences(of: "topology_plan = false", with: "topology_plan = true ")
            try #require(text.contains("\ntopology_plan = true "), "board/sim.toml's topology_plan line changed")
        }
        // A fast preset (SF7 at 250 kHz: ~70 ms per frame, 12 ms slots, still in the 10 %
        // sub-band) keeps the test short; the mesh logic is the same as at LongFast.
        text = text.replacingOccurrences(of: "spreading_factor = 11", with: "spreading_factor = 7")
        try FileManager.default.createDirectory(atPath: box.directory, withIntermediateDirectories: true)
        try text.write(toFile: box.config, atomically: true, encoding: .utf8)
    }

    static func start(_ box: Box) async throws -> DriftdProcess {
        let listener = try NotifySocketListener.abstract()
        let process = try DriftdProcess(arguments: ["run", "--config", box.config, "--data-dir", box.data],
                                        environment: ["NOTIFY_SOCKET": listener.address], stderrPath: box.directory + "/log-\(UUID().uuidString.prefix(6))")
        _ = try await runBlocking { try listener.receive(until: "READY=1", timeout: .seconds(60)) }
        return process
    }

    static func mesh(_ box: Box, _ arguments: [String]) async throws -> [String: Any] {
        let result = try await DriftdProcess.runToCompletion(["mesh"] + arguments + ["--data-dir", box.data, "--json"])
        try #require(result.status == 0, "\(arguments): \(result)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
    }

    /// Texts in `box`'s mesh inbox (one entry per delivery).
    static func inbox(_ box: Box) async throws -> [String] {
        let answer = try await mesh(box, ["inbox"])
        return (answer["messages"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
    }

    /// Waits until `box` has received `text`, at most `timeout`; says how long a slow wait took.
    static func waitFor(_ text: String, at box: Box, timeout: Duration, line: Int = #line) async throws -> Bool {
        let start = ContinuousClock.now
        let deadline = start + timeout
        while ContinuousClock.now < deadline {
            if try await inbox(box).contains(text) {
                MeshBottleProcessTests.noteSlowWait(since: start, file: #fileID, line: line)
                return true
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        return false
    }

    @Test("a broadcast and a directed message (acknowledged) cross the line; a message sent while the middle box is down arrives once it is back, once",
          .enabled(if: binaryBuilt, "driftd binary not built"), .timeLimit(.minutes(6)))
    func lineDelivery() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-line")
        defer { directory.remove() }
        let ports = try Self.freePorts(3)
        let boxes = Self.line(in: directory, ports: ports)
        for box in boxes { try Self.writeConfig(box, peers: ports.filter { $0 != box.port }) }
        let (a, b, c) = (boxes[0], boxes[1], boxes[2])
        var processes = [try await Self.start(a), try await Self.start(b), try await Self.start(c)]
        defer { processes.forEach { $0.send(SIGKILL) } }

        // A hears only B; C hears only B.
        let status = try await Self.mesh(a, ["status"])
        #expect((status["node"] as? String)?.hasPrefix("!") == true, "\(status)")

        _ = try await Self.mesh(a, ["send", "--text", "hello down the line"])
        #expect(try await Self.waitFor("hello down the line", at: c, timeout: .seconds(60)), "\(processes[2].stderr)")
        #expect(try await Self.inbox(b).contains("hello down the line"))

        // A directed message to C: delivered at C, acknowledged back through B, `delivered` in A's outbox.
        let cNode = try #require(try await Self.mesh(c, ["status"])["node"] as? String)
        _ = try await Self.mesh(a, ["send", "--text", "just for C", "--to", cNode])
        if !(try await Self.waitFor("just for C", at: c, timeout: .seconds(60))) {
            let diagnostics = [try await Self.mesh(a, ["status"]), try await Self.mesh(b, ["status"]), try await Self.mesh(c, ["status"])]
            Issue.record("the directed message never reached C: \(diagnostics)\nA: \(processes[0].stderr.suffix(3_000))")
        }
        // An ack lost on the way back is repaired by the outbox's retry 30 s later (C acknowledges
        // the repeat again), so allow for one or two lost acks.
        let deadline = ContinuousClock.now + .seconds(120)
        var delivered = 0
        while ContinuousClock.now < deadline, delivered == 0 {
            delivered = ((try await Self.mesh(a, ["status"]))["outbox"] as? [String: Any])?["delivered"] as? Int ?? 0
            if delivered == 0 { try await Task.sleep(for: .milliseconds(500)) }
        }
        if delivered != 1 {
            let diagnostics = [try await Self.mesh(a, ["status"]), try await Self.mesh(b, ["status"]), try await Self.mesh(c, ["status"])]
            Issue.record("the ack from C did not reach A: \(diagnostics)")
        }
        #expect(try await !Self.inbox(b).contains("just for C"), "B relays it but does not deliver it")

        // A and C cannot hear each other: once C lists B among its neighbours (hellos every 3 s,
        // one lost now and then), it does not list A; so with B away nothing reaches C.
        let aNode = try #require(status["node"] as? String)
        let bNode = try #require(try await Self.mesh(b, ["status"])["node"] as? String)
        let neighboursOfC = try await MeshBottleProcessTests.eventually(.seconds(30)) { () -> [String]? in
            let ids = ((try await Self.mesh(c, ["status"]))["neighbours"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
            return ids.contains(bNode) ? ids : nil
        }
        #expect(neighboursOfC?.contains(aNode) == false, "C hears A directly, or never heard B: \(String(describing: neighboursOfC))")

        // B goes away; A sends.
        processes[1].send(SIGTERM)
        #expect(try await processes[1].waitForExit(timeout: .seconds(20)) == 0)
        _ = try await Self.mesh(a, ["send", "--text", "while you were away"])
        #expect(try await !Self.inbox(c).contains("while you were away"))

        // B comes back with the same data directory: it catches up from A and passes it on.
        processes[1] = try await Self.start(b)
        if !(try await Self.waitFor("while you were away", at: c, timeout: .seconds(90))) {
            let diagnostics = [try await Self.mesh(a, ["status"]), try await Self.mesh(b, ["status"]), try await Self.mesh(c, ["status"])]
            Issue.record("the catch-up did not reach C: \(diagnostics)\nB: \(processes[1].stderr)")
        }
        // Each message once (the seen-set survives B's restart; duplicates are counted, not delivered).
        let final = try await Self.inbox(c)
        #expect(final.filter { $0 == "hello down the line" }.count == 1, "\(final)")
        #expect(final.filter { $0 == "while you were away" }.count == 1, "\(final)")
        #expect(try await Self.inbox(a).isEmpty, "a box does not deliver its own messages to itself")
        // After their first two hellos the boxes may leave their keys out (a run this short sees
        // one or two such hellos): none is dropped for a key its receiver does not know, not
        // even by B, back with its data directory (it keeps the keys it learnt).
        for (name, box) in [("A", a), ("B", b), ("C", c)] {
            let counters = try await Self.mesh(box, ["status"])["counters"] as? [String: Any] ?? [:]
            #expect(counters["helloKeyUnknown"] as? Int == 0, "\(name): a keyless hello from a box whose key was not known: \(counters)")
        }

        for process in processes {
            process.send(SIGTERM)
            #expect(try await process.waitForExit(timeout: .seconds(20)) == 0)
        }
    }

    @Test("with mesh.topology_plan the boxes learn the line from each other's adverts and B relays A's broadcast because the plan names it",
          .enabled(if: binaryBuilt, "driftd binary not built"), .timeLimit(.minutes(8)))
    func topologyPlanLine() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-topology")
        defer { directory.remove() }
        let ports = try Self.freePorts(3)
        let boxes = Self.line(in: directory, ports: ports)
        for box in boxes { try Self.writeConfig(box, peers: ports.filter { $0 != box.port }, topologyPlan: true) }
        let (a, b, c) = (boxes[0], boxes[1], boxes[2])
        let processes = [try await Self.start(a), try await Self.start(b), try await Self.start(c)]
        defer { processes.forEach { $0.send(SIGKILL) } }

        // Adverts are paced by the 3-second hellos: the first within 6 s after the learning
        // period, again 6 s after a list changed, and every 36 hello periods (108 s ± 11 s)
        // anyway. An advert is not repaired: one lost at a box (the loopback radio is half
        // duplex) is made up by the next periodic one, so allow for three periods.
        let known = try await MeshBottleProcessTests.eventually(.seconds(330)) { () -> Bool? in
            for box in [a, b, c] {
                let status = try await Self.mesh(box, ["status"])
                if status["topologyBoxes"] as? Int != 3 || status["topologyListsLacking"] as? Int != 0 { return nil }
            }
            return true
        }
        if known != true {
            for box in [a, b, c] {
                Issue.record("box \(box.name) never knew the three lists: \(try await Self.mesh(box, ["status"]))")
            }
        }
        // The plan for A's floods names B (it alone hears A and is heard by C). A's frame can
        // collide at B with one of C's (A and C do not hear each other): B then gets the message
        // by catch-up, not as a planned relay, so up to three are sent until B relays one.
        var sent: [String] = []
        var counters: [String: Any] = [:]
        for attempt in 1...3 {
            let plannedBefore = (try await Self.mesh(b, ["status"])["counters"] as? [String: Any])?["plannedRelays"] as? Int ?? 0
            let text = attempt == 1 ? "planned down the line" : "planned down the line \(attempt)"
            sent.append(text)
            _ = try await Self.mesh(a, ["send", "--text", text])
            #expect(try await Self.waitFor(text, at: c, timeout: .seconds(60)), "\(processes[2].stderr.suffix(3_000))")
            counters = try await Self.mesh(b, ["status"])["counters"] as? [String: Any] ?? [:]
            if (counters["plannedRelays"] as? Int ?? 0) > plannedBefore { break }
        }
        #expect((counters["plannedRelays"] as? Int ?? 0) > 0, "B relayed none of \(sent.count) broadcasts of A as planned: \(counters)")
        for box in [a, b, c] {
            let sent = try await Self.mesh(box, ["status"])["counters"] as? [String: Any] ?? [:]
            #expect((sent["topologyAdverts"] as? Int ?? 0) >= 1, "box \(box.name) sent no advert: \(sent)")
            #expect((sent["malformed"] as? [String: Int] ?? [:]).isEmpty, "box \(box.name): \(sent)")
        }
        // Adverts are never delivered as messages.
        #expect(try await Self.inbox(c).sorted() == sent.sorted())
        #expect(try await Self.inbox(a).isEmpty)

        for process in processes {
            process.send(SIGTERM)
            #expect(try await process.waitForExit(timeout: .seconds(20)) == 0)
        }
    }
}
