import DriftDaemon
import DriftSystem
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two meshes of `driftd run` processes on two separate simulated radio media (their
/// `radio_peers` never cross), each with a gateway on one real Mosquitto broker on loopback:
/// messages and bottles cross from mesh 1 to mesh 2 through two gateways, exactly once.
@Suite("MQTT gateways: two meshes bridged over a real broker", .serialized)
struct MqttProcessTests {
    static var enabled: Bool { MeshProcessTests.binaryBuilt && MosquittoBroker.available }

    /// Writes a box's config: the process tests' fast sim radio, peers only in its own mesh,
    /// and `[mqtt]` on for a gateway.
    static func writeConfig(_ box: MeshProcessTests.Box, peers: [Int], gatewayPort: Int?) throws {
        try MeshProcessTests.writeConfig(box, peers: peers)
        var text = try String(contentsOfFile: box.config, encoding: .utf8)
        if let gatewayPort {
            text = text.replacingOccurrences(of: "enabled = false\nhost = \"127.0.0.1\"\nport = 1883",
                                             with: "enabled = true\nhost = \"127.0.0.1\"\nport = \(gatewayPort)")
            text = text.replacingOccurrences(of: "telemetry_interval_s = 60", with: "telemetry_interval_s = 5")
        }
        // A chat with nobody inside dies 45 s later: long enough for a visitor at the other mesh
        // to hear that it opened and join across two radio hops and the broker on a loaded
        // machine (with 5 s the chat died first in one run), short enough for the erase phase.
        text = text.replacingOccurrences(of: "chat_countdown_s = 30 ", with: "chat_countdown_s = 45 ")
        try text.write(toFile: box.config, atomically: true, encoding: .utf8)
    }

    /// Boxes of two meshes: `mesh1` names at 0, 300, 600 m east; `mesh2` likewise (each mesh has its own medium).
    static func boxes(_ directory: TemporaryDirectory, mesh1: [String], mesh2: [String], gateways: Set<String>,
                      broker: MosquittoBroker) throws -> [String: MeshProcessTests.Box] {
        var result: [String: MeshProcessTests.Box] = [:]
        for names in [mesh1, mesh2] {
            let ports = try MeshProcessTests.freePorts(names.count)
            for (index, name) in names.enumerated() {
                let box = MeshProcessTests.Box(name: name, directory: directory.appending(name), port: ports[index],
                                               eastMetres: Double(index) * 300)
                try writeConfig(box, peers: ports.filter { $0 != box.port }, gatewayPort: gateways.contains(name) ? broker.port : nil)
                result[name] = box
            }
        }
        return result
    }

    static func start(_ box: MeshProcessTests.Box, http: LoopbackHTTP? = nil) async throws -> DriftdProcess {
        let listener = try NotifySocketListener.abstract()
        var arguments = ["run", "--config", box.config, "--data-dir", box.data]
        if let http { arguments += ["--listen", "127.0.0.1:\(http.port)"] }
        let process = try DriftdProcess(arguments: arguments, environment: ["NOTIFY_SOCKET": listener.address],
                                        stderrPath: box.directory + "/log-\(UUID().uuidString.prefix(6))")
        _ = try await runBlocking { try listener.receive(until: "READY=1", timeout: .seconds(60)) }
        return process
    }

    /// A visitor token; READY=1 can come before the visitor page listens (when it could not bind
    /// within 10 s), so a refused connection is tried again for a while.
    static func visitor(_ http: LoopbackHTTP) async throws -> String {
        try #require(try await MeshBottleProcessTests.eventually(.seconds(30)) { try await http.newVisitor() })
    }

    static func node(_ box: MeshProcessTests.Box) async throws -> String {
        try #require(try await MeshProcessTests.mesh(box, ["status"])["node"] as? String)
    }

    /// A gateway's `mqtt.status` from its control socket.
    static func mqttStatus(_ box: MeshProcessTests.Box) async throws -> [String: Any] {
        let socket = box.data + "/driftd.sock"
        let answer = try await runBlocking {
            try ControlClient.send(rawLine: #"{"command":"mqtt.status"}"#, to: socket, timeoutMilliseconds: 60_000)
        }
        let object = try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
        return try #require(object?["result"] as? [String: Any], "\(answer)")
    }

    static func dump(_ boxes: [MeshProcessTests.Box], _ processes: [DriftdProcess], _ broker: MosquittoBroker) async throws {
        for (box, process) in zip(boxes, processes) {
            let status = try await DriftdProcess.runToCompletion(["mesh", "status", "--data-dir", box.data])
            print("== box \(box.name)\n\(status.stdout)\n\(process.stderr.suffix(3_000))")
        }
        print("== broker\n\(broker.log.suffix(2_000))")
    }

    @Test("a broadcast and a directed message cross two meshes once (acknowledged back); a broker restart loses nothing; a second gateway in mesh 1 adds no duplicate",
          .enabled(if: enabled, "driftd binary not built or \(MosquittoBroker.skipReason)"), .timeLimit(.minutes(6)))
    func messagesCross() async throws {
        let directory = try TemporaryDirectory(prefix: "mqtt-messages")
        defer { directory.remove() }
        let broker = try await MosquittoBroker()
        let boxes = try Self.boxes(directory, mesh1: ["A", "G1", "H1"], mesh2: ["G2", "Z"], gateways: ["G1", "H1", "G2"], broker: broker)
        let order = ["A", "G1", "H1", "G2", "Z"].map { boxes[$0]! }
        var processes: [DriftdProcess] = []
        for box in order { processes.append(try await Self.start(box)) }
        defer { processes.forEach { $0.send(SIGKILL) } }
        let (a, z) = (boxes["A"]!, boxes["Z"]!)
        let zNode = try await Self.node(z)
        let begun = ContinuousClock.now
        func mark(_ what: String) { print("mqtt messages test: \(what) at \(ContinuousClock.now - begun)") }

        _ = try await MeshProcessTests.mesh(a, ["send", "--text", "hello across the broker"])
        let broadcast = try await MeshProcessTests.waitFor("hello across the broker", at: z, timeout: .seconds(90))
        if !broadcast { try await Self.dump(order, processes, broker) }
        try #require(broadcast, "the broadcast never reached mesh 2")
        mark("broadcast arrived")

        _ = try await MeshProcessTests.mesh(a, ["send", "--text", "just for Z", "--to", zNode])
        #expect(try await MeshProcessTests.waitFor("just for Z", at: z, timeout: .seconds(90)))
        let acknowledged = try await MeshBottleProcessTests.eventually(.seconds(120)) { () -> Bool? in
            ((try await MeshProcessTests.mesh(a, ["status"]))["outbox"] as? [String: Any])?["delivered"] as? Int == 1 ? true : nil
        }
        if acknowledged == nil { try await Self.dump(order, processes, broker) }
        #expect(acknowledged == true, "Z's acknowledgement never came back to A")
        mark("directed message acknowledged")

        // The broker goes away; A sends; once the message waits in a gateway's outbox, the broker
        // comes back (empty: no persistence). The gateways' outboxes and the mesh's retries deliver it.
        await broker.stop()
        _ = try await MeshProcessTests.mesh(a, ["send", "--text", "during the outage", "--to", zNode])
        let held = try await MeshBottleProcessTests.eventually(.seconds(90)) { () -> Bool? in
            for name in ["G1", "H1"] where try await Self.mqttStatus(boxes[name]!)["outboxQueued"] as? Int ?? 0 > 0 { return true }
            return nil
        }
        #expect(held == true, "the message sent during the outage never waited in a gateway's outbox")
        try await broker.start()
        let afterRestart = try await MeshProcessTests.waitFor("during the outage", at: z, timeout: .seconds(150))
        if !afterRestart { try await Self.dump(order, processes, broker) }
        #expect(afterRestart, "the message sent during the outage never arrived")
        mark("message sent during the outage arrived")

        // Exactly once, when nothing is on its way any more: A has both acknowledgements (no more
        // retries) and no gateway has a frame queued or unacknowledged.
        let settled = try await MeshBottleProcessTests.eventually(.seconds(120)) { () -> Bool? in
            guard ((try await MeshProcessTests.mesh(a, ["status"]))["outbox"] as? [String: Any])?["delivered"] as? Int == 2 else { return nil }
            for name in ["G1", "H1", "G2"] {
                let status = try await Self.mqttStatus(boxes[name]!)
                guard status["outboxQueued"] as? Int == 0, status["inflight"] as? Int == 0 else { return nil }
            }
            return true
        }
        #expect(settled == true, "A's messages were not all acknowledged, or a gateway kept frames queued")
        let inbox = try await MeshProcessTests.inbox(z)
        for text in ["hello across the broker", "just for Z", "during the outage"] {
            #expect(inbox.filter { $0 == text }.count == 1, "\(text): \(inbox)")
        }
        for process in processes {
            process.send(SIGTERM)
            #expect(try await process.waitForExit(timeout: .seconds(20)) == 0)
        }
    }

    @Test("a bottle sent from mesh 1 to a box in mesh 2 arrives and opens; a chat line from mesh 1 crosses; its end erases it on both sides",
          .enabled(if: enabled, "driftd binary not built or \(MosquittoBroker.skipReason)"), .timeLimit(.minutes(8)))
    func bottleCrosses() async throws {
        let directory = try TemporaryDirectory(prefix: "mqtt-bottle")
        defer { directory.remove() }
        let broker = try await MosquittoBroker()
        let boxes = try Self.boxes(directory, mesh1: ["A", "G1"], mesh2: ["G2", "Z"], gateways: ["G1", "G2"], broker: broker)
        let (a, z) = (boxes["A"]!, boxes["Z"]!)
        let (aHTTP, zHTTP) = (LoopbackHTTP(port: try LoopbackHTTP.freePort()), LoopbackHTTP(port: try LoopbackHTTP.freePort()))
        let order = [a, boxes["G1"]!, boxes["G2"]!, z]
        let processes = [try await Self.start(a, http: aHTTP), try await Self.start(boxes["G1"]!), try await Self.start(boxes["G2"]!),
                         try await Self.start(z, http: zHTTP)]
        defer { processes.forEach { $0.send(SIGKILL) } }
        let (alice, zoe) = (try await Self.visitor(aHTTP), try await Self.visitor(zHTTP))

        // A learns of Z from Z's box-info broadcast, carried across by the gateways.
        let known = try await MeshBottleProcessTests.eventually(.seconds(120)) { () -> Bool? in
            let list = try await aHTTP.send("GET", "/api/v1/mesh/boxes", token: alice).object["boxes"] as? [[String: Any]] ?? []
            return list.contains { $0["name"] as? String == "Box Z" } ? true : nil
        }
        if known == nil { try await Self.dump(order, processes, broker) }
        try #require(known == true, "A never heard of Z across the broker")

        let secret = "a note across two meshes \(UUID().uuidString.prefix(8))"
        let started = ContinuousClock.now
        let sent = try await aHTTP.send("POST", "/api/v1/bottles", token: alice, json: [
            "text": secret, "hint": "from mesh 1", "lifetimeSeconds": 1_800, "placement": "manual", "to": "Box Z",
        ])
        try #require(sent.status == 202, "\(sent)")
        let id = try #require(sent.object["id"] as? String)
        let arrived = try await MeshBottleProcessTests.eventually(.seconds(150)) { () -> Bool? in
            try await zHTTP.send("GET", "/api/v1/bottles/\(id)", token: zoe).status == 200 ? true : nil
        }
        if arrived == nil { try await Self.dump(order, processes, broker) }
        try #require(arrived == true, "the bottle never reached Z")
        print("bottle A → Z across two meshes: \(ContinuousClock.now - started) (polled every 0.5 s)")
        let opened = try await zHTTP.send("POST", "/api/v1/bottles/\(id)/open", token: zoe, json: [:])
        try #require(opened.status == 200, "\(opened)")
        #expect((opened.object["content"] as? [String: Any])?["text"] as? String == secret || opened.body.contains(secret))

        // A visitor at A hears that the chat opened, joins and posts; the line reaches Z.
        let bob = try await aHTTP.newVisitor()
        let listed = try await MeshBottleProcessTests.eventually(.seconds(90)) { () -> Bool? in
            let chats = try await aHTTP.send("GET", "/api/v1/mesh/chats", token: bob).object["chats"] as? [[String: Any]] ?? []
            return chats.contains { $0["bottle"] as? String == id } ? true : nil
        }
        try #require(listed == true, "A never heard that the chat opened at Z")
        let line = "hello from the other mesh \(UUID().uuidString.prefix(6))"
        #expect(try await aHTTP.send("POST", "/api/v1/mesh/chats/\(id)/join", token: bob).status == 202)
        #expect(try await aHTTP.send("POST", "/api/v1/mesh/chats/\(id)/lines", token: bob, json: ["text": line]).status == 202)
        let atZ = try await MeshBottleProcessTests.eventually(.seconds(150)) { () -> Bool? in
            let messages = try await zHTTP.send("GET", "/api/v1/bottles/\(id)/messages", token: zoe).object["messages"] as? [[String: Any]] ?? []
            return messages.contains { $0["text"] as? String == line } ? true : nil
        }
        if atZ == nil { try await Self.dump(order, processes, broker) }
        #expect(atZ == true, "the chat line never crossed to Z")

        // Everybody leaves: the chat's countdown (45 s) ends the bottle at Z; the erase crosses back.
        #expect(try await aHTTP.send("POST", "/api/v1/mesh/chats/\(id)/leave", token: bob).status == 202)
        let goneAtZ = try await MeshBottleProcessTests.eventually(.seconds(180)) { () -> Bool? in
            try await zHTTP.send("GET", "/api/v1/bottles/\(id)", token: zoe).status == 404 ? true : nil
        }
        #expect(goneAtZ == true, "the bottle did not end at Z")
        let goneAtA = try await MeshBottleProcessTests.eventually(.seconds(150)) { () -> Bool? in
            let chats = try await aHTTP.send("GET", "/api/v1/mesh/chats", token: bob).object["chats"] as? [[String: Any]] ?? []
            let sentList = try await aHTTP.send("GET", "/api/v1/mesh/sent", token: alice).object["bottles"] as? [[String: Any]] ?? [[:]]
            return chats.contains { $0["bottle"] as? String == id } || sentList.contains { $0["id"] as? String == id } ? nil : true
        }
        if goneAtA == nil { try await Self.dump(order, processes, broker) }
        #expect(goneAtA == true, "A kept the bottle after it ended at Z")
        for process in processes {
            process.send(SIGTERM)
            #expect(try await process.waitForExit(timeout: .seconds(20)) == 0)
        }
        for box in [a, z] {
            #expect(MeshBottleProcessTests.filesContaining(secret, under: box.data).isEmpty, "\(box.name) still holds the bottle's text")
        }
    }
}
