import DriftSystem
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Bottles across boxes with three `driftd run` processes on the simulated radio, in a line
/// A — B — C (800 m apart, 1 km range: A and C hear only B), each with its visitor page on a
/// loopback port: a bottle sent from A to C arrives and opens there with the distance
/// travelled; a visitor on B chats in it; when its chat dies every box erases it (raw-byte scan
/// of every data directory), including B, which was off at the time.
@Suite("Mesh: bottles, remote chat and erase-everywhere across three driftd processes")
struct MeshBottleProcessTests {
    struct Node {
        var box: MeshProcessTests.Box
        var http: LoopbackHTTP
    }

    static func start(_ node: Node) async throws -> DriftdProcess {
        let listener = try NotifySocketListener.abstract()
        let process = try DriftdProcess(
            arguments: ["run", "--config", node.box.config, "--data-dir", node.box.data, "--listen", "127.0.0.1:\(node.http.port)"],
            environment: ["NOTIFY_SOCKET": listener.address], stderrPath: node.box.directory + "/log-\(UUID().uuidString.prefix(6))")
        _ = try await runBlocking { try listener.receive(until: "READY=1", timeout: .seconds(60)) }
        return process
    }

    /// Boxes A — B — C in a line, 800 m apart (A and C hear only B), their configs written.
    static func line(in directory: TemporaryDirectory) throws -> [Node] {
        let ports = try MeshProcessTests.freePorts(3)
        let nodes = try zip(["A", "B", "C"], zip(ports, [0.0, 800, 1_600])).map { name, rest in
            Node(box: MeshProcessTests.Box(name: name, directory: directory.appending(name), port: rest.0, eastMetres: rest.1),
                 http: LoopbackHTTP(port: try LoopbackHTTP.freePort()))
        }
        for node in nodes { try MeshProcessTests.writeConfig(node.box, peers: ports.filter { $0 != node.box.port }) }
        return nodes
    }

    /// Polls `probe` every half second until it returns a value, at most `timeout` (then once more, errors thrown).
    /// A wait over 5 s is printed with its line (what the mesh was slow at, when a run is slow).
    static func eventually<T>(_ timeout: Duration, file: String = #fileID, line: Int = #line,
                              _ probe: () async throws -> T?) async throws -> T? {
        let start = ContinuousClock.now
        let deadline = start + timeout
        while ContinuousClock.now < deadline {
            // A box just started may not listen yet: a refused connection is retried.
            if let value = try? await probe() {
                noteSlowWait(since: start, file: file, line: line)
                return value
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        return try await probe()
    }

    /// Prints how long a wait took when it took over 5 s.
    static func noteSlowWait(since start: ContinuousClock.Instant, file: String = #fileID, line: Int) {
        let waited = ContinuousClock.now - start
        if waited > .seconds(5) { print("slow wait: \(file):\(line) took \(waited)") }
    }

    /// Every file under `directory` that contains `needle` (raw bytes: database, WAL, media, keys).
    static func filesContaining(_ needle: String, under directory: String) -> [String] {
        let bytes = Array(needle.utf8)
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        var hits: [String] = []
        for case let path as String in walker {
            let full = directory + "/" + path
            guard let data = FileManager.default.contents(atPath: full), data.count >= bytes.count else { continue }
            if data.withUnsafeBytes({ raw in
                let haystack = raw.bindMemory(to: UInt8.self)
                return (0...(haystack.count - bytes.count)).contains { start in
                    haystack[start] == bytes[0] && haystack[start..<start + bytes.count].elementsEqual(bytes)
                }
            }) { hits.append(path) }
        }
        return hits
    }

    /// What `node` holds of a bottle (`driftd mesh traces`).
    static func traces(_ node: Node, _ bottle: String) async throws -> [String: Any] {
        try await MeshProcessTests.mesh(node.box, ["traces", "--bottle", bottle])
    }

    /// Prints each box's mesh status, inbox and log (when an expectation is about to fail).
    static func dump(_ nodes: [Node], _ processes: [DriftdProcess]) async throws {
        for (node, process) in zip(nodes, processes) {
            let status = try await DriftdProcess.runToCompletion(["mesh", "status", "--data-dir", node.box.data])
            let inbox = try await DriftdProcess.runToCompletion(["mesh", "inbox", "--data-dir", node.box.data])
            print("== box \(node.box.name)\n\(status.stdout)\n\(inbox.stdout)\n\(process.stderr.suffix(4_000))")
        }
    }

    @Test("a bottle sent A → C opens at C with its distance; B chats in it; its end erases it on every box, B on reconnect",
          .enabled(if: MeshProcessTests.binaryBuilt, "driftd binary not built"), .timeLimit(.minutes(12)))
    func bottleAcrossBoxes() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-bottles")
        defer { directory.remove() }
        let nodes = try Self.line(in: directory)
        for node in nodes {
            // A chat with nobody inside dies 5 s later (the default 30 s would only slow the test).
            let text = try String(contentsOfFile: node.box.config, encoding: .utf8)
            try text.replacingOccurrences(of: "chat_countdown_s = 30 ", with: "chat_countdown_s = 5 ")
                .write(toFile: node.box.config, atomically: true, encoding: .utf8)
        }
        let (a, b, c) = (nodes[0], nodes[1], nodes[2])
        var processes = [try await Self.start(a), try await Self.start(b), try await Self.start(c)]
        defer { processes.forEach { $0.send(SIGKILL) } }
        let (alice, bob, carol) = (try await a.http.newVisitor(), try await b.http.newVisitor(), try await c.http.newVisitor())

        // A learns of C from C's box-info broadcast (relayed by B).
        let known = try await Self.eventually(.seconds(90)) { () -> Bool? in
            let boxes = try await a.http.send("GET", "/api/v1/mesh/boxes", token: alice).object["boxes"] as? [[String: Any]] ?? []
            return boxes.contains { $0["name"] as? String == "Box C" } ? true : nil
        }
        try #require(known == true, "A never heard of C: \(processes[0].stderr.suffix(2_000))")

        // A visitor at A sends a bottle to "Box C"; it lives 100 s.
        let secret = "a note that crossed the field \(UUID().uuidString.prefix(8))"
        let sent = try await a.http.send("POST", "/api/v1/bottles", token: alice, json: [
            "text": secret, "hint": "from the west end", "lifetimeSeconds": 1_800, "placement": "manual", "to": "Box C",
        ])
        try #require(sent.status == 202, "\(sent)")
        let id = try #require(sent.object["id"] as? String)
        let code = try #require(sent.object["shareCode"] as? String)
        #expect(sent.object["state"] as? String == "travelling")

        // Another visitor at A, given the share code, learns where it went and watches it from A.
        let dave = try await a.http.newVisitor()
        let travelled = try await a.http.send("GET", "/api/v1/mesh/travelled/\(code)", token: dave)
        #expect(travelled.status == 200 && travelled.object["destination"] as? String == "Box C", "\(travelled)")
        #expect(try await a.http.send("PUT", "/api/v1/mesh/watches/\(code)", token: dave).status == 202)

        // It arrives at C and opens there; the distance travelled is A → C.
        let arrived = try await Self.eventually(.seconds(150)) { () -> Bool? in
            try await c.http.send("GET", "/api/v1/bottles/\(id)", token: carol).status == 200 ? true : nil
        }
        if arrived == nil { try await Self.dump(nodes, processes) }
        try #require(arrived == true, "the bottle never reached C")
        // Before anyone opens it: C knows A watches it and told A it can be opened (A's visitors
        // hear it on their page).
        let aNode = try #require(try await MeshProcessTests.mesh(a.box, ["status"])["node"] as? String)
        let watchedAtC = try await Self.eventually(.seconds(120)) { () -> Bool? in
            try await Self.traces(c, id)["links"].map { ($0 as? [String] ?? []).contains("watcher:\(aNode)") } == true ? true : nil
        }
        if watchedAtC == nil {
            print("traces at C: \(try await Self.traces(c, id)); at A: \(try await Self.traces(a, id))")
            try await Self.dump(nodes, processes)
        }
        #expect(watchedAtC == true, "C never heard that A watches the bottle")
        let openableAtA = try await Self.eventually(.seconds(120)) { () -> Bool? in
            (try await Self.traces(a, id)["notices"] as? [String] ?? []).contains("becameOpenable") ? true : nil
        }
        #expect(openableAtA == true, "A never heard that the bottle can be opened at C")
        // C will label B's visitor from B's place in its box directory: before the chat opens (it
        // dies 5 s after the last visitor leaves), wait until B's box info with its position has
        // reached C (it is re-announced once B knows its position).
        let placed = try await Self.eventually(.seconds(90)) { () -> Bool? in
            let boxes = try await c.http.send("GET", "/api/v1/mesh/boxes", token: carol).object["boxes"] as? [[String: Any]] ?? []
            return boxes.contains { $0["name"] as? String == "Box B" && $0["latitude"] is Double } ? true : nil
        }
        #expect(placed == true, "C never learnt where B is")
        let opened = try await c.http.send("POST", "/api/v1/bottles/\(id)/open", token: carol, json: [:])
        try #require(opened.status == 200, "\(opened)")
        let distance = try #require(opened.object["distanceTravelledMeters"] as? Double, "\(opened)")
        #expect(abs(distance - 1_600) < 150, "distance travelled \(distance) m, expected about 1600 m")
        #expect((opened.object["content"] as? [String: Any])?["text"] as? String == secret || opened.body.contains(secret))


        // B hears that the chat is open, joins and posts; the line reaches C's chat with B's label,
        // and comes back to B's replica.
        let listed = try await Self.eventually(.seconds(60)) { () -> Bool? in
            let chats = try await b.http.send("GET", "/api/v1/mesh/chats", token: bob).object["chats"] as? [[String: Any]] ?? []
            return chats.contains { $0["bottle"] as? String == id } ? true : nil
        }
        try #require(listed == true, "B never heard that the chat opened")
        let line = "hello from the middle \(UUID().uuidString.prefix(6))"
        #expect(try await b.http.send("POST", "/api/v1/mesh/chats/\(id)/join", token: bob).status == 202)
        let posted = try await b.http.send("POST", "/api/v1/mesh/chats/\(id)/lines", token: bob, json: ["text": line])
        #expect(posted.status == 202, "\(posted)")
        // A lost frame is repaired by the outbox's retries (30 s, then 45 s): allow for two.
        let atC = try await Self.eventually(.seconds(150)) { () -> [String: Any]? in
            let messages = try await c.http.send("GET", "/api/v1/bottles/\(id)/messages", token: carol).object["messages"] as? [[String: Any]] ?? []
            return messages.first { $0["text"] as? String == line }
        }
        if atC == nil { try await Self.dump(nodes, processes) }
        let received = try #require(atC, "B's line never reached C")
        #expect(((received["participant"] as? [String: Any])?["label"] as? String)?.lowercased() == "local", "\(received)")
        let replica = try await Self.eventually(.seconds(150)) { () -> Bool? in
            let lines = try await b.http.send("GET", "/api/v1/mesh/chats/\(id)/lines", token: bob).object["lines"] as? [[String: Any]] ?? []
            return lines.contains { $0["text"] as? String == line && $0["isMe"] as? Bool == true } ? true : nil
        }
        #expect(replica == true, "the host's relay of B's line never came back to B")

        // A hears the delivery confirmation: the bottle is `delivered` and A holds no copy of its text.
        let delivered = try await Self.eventually(.seconds(120)) { () -> Bool? in
            let list = try await a.http.send("GET", "/api/v1/mesh/sent", token: alice).object["bottles"] as? [[String: Any]] ?? []
            return list.contains { $0["id"] as? String == id && $0["state"] as? String == "delivered" } ? true : nil
        }
        #expect(delivered == true, "A never heard that C got the bottle")
        #expect(Self.filesContaining(secret, under: a.box.data).isEmpty)

        // B's visitor leaves and B goes off; with nobody inside, the chat's countdown (5 s here)
        // ends the bottle at C, which erases it and broadcasts the erase. A hears C only through
        // B, so nobody else hears it yet. Carol opened it at C over HTTP and never opened a chat
        // socket: she counts as inside for 20 s after her open (the presence grace), so the
        // countdown starts when that ends — 15–20 s after B's leave, not at once.
        #expect(try await b.http.send("POST", "/api/v1/mesh/chats/\(id)/leave", token: bob).status == 202)
        // B goes off only once C has acknowledged the leave (else C would keep B's visitor inside
        // until their 5-minute silence runs out).
        let left = try await Self.eventually(.seconds(120)) { () -> Bool? in
            let outbox = try await MeshProcessTests.mesh(b.box, ["status"])["outbox"] as? [String: Any]
            return outbox?["queued"] as? Int == 0 ? true : nil
        }
        #expect(left == true, "C never acknowledged B's leave")
        processes[1].send(SIGTERM)
        #expect(try await processes[1].waitForExit(timeout: .seconds(20)) == 0)
        let goneAtC = try await Self.eventually(.seconds(180)) { () -> Bool? in
            try await c.http.send("GET", "/api/v1/bottles/\(id)", token: carol).status == 404 ? true : nil
        }
        #expect(goneAtC == true, "the bottle did not end at C")

        // B comes back: reconciliation hands it C's held erase; B erases its replica and passes
        // the erase on to A, which erases its sent record.
        processes[1] = try await Self.start(b)
        let goneAtB = try await Self.eventually(.seconds(120)) { () -> Bool? in
            let lines = try await b.http.send("GET", "/api/v1/mesh/chats/\(id)/lines", token: bob).object["lines"] as? [[String: Any]] ?? []
            let chats = try await b.http.send("GET", "/api/v1/mesh/chats", token: bob).object["chats"] as? [[String: Any]] ?? []
            return lines.isEmpty && !chats.contains { $0["bottle"] as? String == id } ? true : nil
        }
        if goneAtB == nil { try await Self.dump(nodes, processes) }
        #expect(goneAtB == true, "B kept the chat after reconnecting")
        let goneAtA = try await Self.eventually(.seconds(120)) { () -> Bool? in
            let list = try await a.http.send("GET", "/api/v1/mesh/sent", token: alice).object["bottles"] as? [[String: Any]] ?? [[:]]
            return list.contains { $0["id"] as? String == id } ? nil : true
        }
        if goneAtA == nil { try await Self.dump(nodes, processes) }
        #expect(goneAtA == true, "A still lists the bottle after it ended")

        for process in processes {
            process.send(SIGTERM)
            #expect(try await process.waitForExit(timeout: .seconds(20)) == 0)
        }
        // No trace of the bottle's text or the chat line in any box's files.
        for node in nodes {
            #expect(Self.filesContaining(secret, under: node.box.data).isEmpty, "\(node.box.name) still holds the bottle's text")
            #expect(Self.filesContaining(line, under: node.box.data).isEmpty, "\(node.box.name) still holds the chat line")
        }
    }

    /// The trust review's reproduction: box C hosts bottles that need a password, a presence
    /// press, or are one-shot; a visitor on box A (two hops away) with neither proof used to
    /// join and post in C's chats. Now the host's rules hold across boxes: the password chat is
    /// announced as such and admits only with the right password (sealed to C), the presence
    /// and one-shot chats are never announced and cannot be joined from A.
    @Test("chats hosted on C admit a visitor at A only with the proofs C asks for: password sealed to C; presence and one-shot never",
          .enabled(if: MeshProcessTests.binaryBuilt, "driftd binary not built"), .timeLimit(.minutes(12)))
    func remoteChatFollowsTheHostsRules() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-trust")
        defer { directory.remove() }
        let nodes = try Self.line(in: directory)
        let (a, c) = (nodes[0], nodes[2])
        let processes = [try await Self.start(a), try await Self.start(nodes[1]), try await Self.start(c)]
        defer { processes.forEach { $0.send(SIGKILL) } }
        let (alice, carol) = (try await a.http.newVisitor(), try await c.http.newVisitor())

        // Carol drops and opens three bottles at C, one per proof a visitor elsewhere cannot bring along.
        func drop(_ text: String, _ conditions: [[String: Any]], oneShot: Bool = false) async throws -> String {
            let made = try await c.http.send("POST", "/api/v1/bottles", token: carol, json: [
                "text": text, "lifetimeSeconds": 3_600, "conditions": conditions, "oneShot": oneShot,
            ])
            try #require(made.status == 201, "\(made)")
            return try #require(made.object["id"] as? String)
        }
        let password = try await drop("behind a password", [["kind": "password", "password": "kelp"]])
        let presence = try await drop("only for those who came", [["kind": "presence", "withinSeconds": 120]])
        let oneShot = try await drop("for one reader", [], oneShot: true)
        for id in [password, oneShot] {
            let opened = try await c.http.send("POST", "/api/v1/bottles/\(id)/open", token: carol, json: [:])
            try #require(opened.status == 200, "\(opened)")
        }
        // The presence bottle opens at C with Carol's own press count.
        let asked = try await c.http.send("POST", "/api/v1/presence-requests", token: carol, json: ["bottle": presence])
        let presses = try #require(asked.object["presses"] as? Int, "\(asked)")
        for _ in 0..<presses {
            let pressed = try await DriftdProcess.runToCompletion(["ctl", "press", "presence", "--data-dir", c.box.data])
            try #require(pressed.status == 0, "\(pressed)")
        }
        let presenceOpened = try await Self.eventually(.seconds(30)) { () -> Bool? in
            try await c.http.send("POST", "/api/v1/bottles/\(presence)/open", token: carol, json: [:]).status == 200 ? true : nil
        }
        try #require(presenceOpened == true, "Carol's presses did not open the presence bottle at C")

        // A hears of the password chat, marked as needing the password; never of the other two.
        let listed = try await Self.eventually(.seconds(120)) { () -> [String: Any]? in
            let chats = try await a.http.send("GET", "/api/v1/mesh/chats", token: alice).object["chats"] as? [[String: Any]] ?? []
            return chats.first { $0["bottle"] as? String == password }
        }
        if listed == nil { try await Self.dump(nodes, processes) }
        let chat = try #require(listed, "A never heard that the password chat opened")
        #expect(chat["needsPassword"] as? Bool == true, "\(chat)")
        let chats = try await a.http.send("GET", "/api/v1/mesh/chats", token: alice).object["chats"] as? [[String: Any]] ?? []
        #expect(!chats.contains { [presence, oneShot].contains($0["bottle"] as? String ?? "") }, "\(chats)")
        for id in [presence, oneShot] {
            #expect(try await a.http.send("POST", "/api/v1/mesh/chats/\(id)/join", token: alice).status == 404)
            #expect(try await a.http.send("POST", "/api/v1/mesh/chats/\(id)/lines", token: alice, json: ["text": "let me in"]).status == 404)
        }

        // Without the password A refuses at once; with a wrong one C refuses, and A says why.
        let bare = try await a.http.send("POST", "/api/v1/mesh/chats/\(password)/join", token: alice)
        #expect(bare.status == 422 && bare.body.contains("password"), "\(bare)")
        #expect(try await a.http.send("POST", "/api/v1/mesh/chats/\(password)/join", token: alice, json: ["password": "sand"]).status == 202)
        // Where Alice stands: in the lines once admitted, in the 403 `not_admitted` until then.
        func admission() async throws -> [String: Any]? {
            let reply = try await a.http.send("GET", "/api/v1/mesh/chats/\(password)/lines", token: alice).object
            let refusal = (reply["error"] as? [String: Any])?["details"] as? [String: Any]
            return (reply["admission"] ?? refusal?["admission"]) as? [String: Any]
        }
        let refused = try await Self.eventually(.seconds(150)) { () -> [String: Any]? in
            let answer = try await admission()
            return answer?["state"] as? String == "refused" ? answer : nil
        }
        if refused == nil { try await Self.dump(nodes, processes) }
        #expect(refused?["reason"] as? String == "wrong password", "\(String(describing: refused))")
        let early = try await a.http.send("POST", "/api/v1/mesh/chats/\(password)/lines", token: alice, json: ["text": "am I in?"])
        #expect(early.status == 403, "\(early)")

        // The right password is admitted; A's line reaches C's chat and C's lines come back to A.
        #expect(try await a.http.send("POST", "/api/v1/mesh/chats/\(password)/join", token: alice, json: ["password": "kelp"]).status == 202)
        let admitted = try await Self.eventually(.seconds(150)) { () -> Bool? in
            try await admission()?["state"] as? String == "admitted" ? true : nil
        }
        if admitted == nil { try await Self.dump(nodes, processes) }
        try #require(admitted == true, "C never admitted A's visitor with the right password")
        let line = "hello from the west end \(UUID().uuidString.prefix(6))"
        let posted = try await a.http.send("POST", "/api/v1/mesh/chats/\(password)/lines", token: alice,
                                           json: ["text": line, "language": "en-GB"])
        #expect(posted.status == 202, "\(posted)")
        let atC = try await Self.eventually(.seconds(150)) { () -> [String: Any]? in
            let messages = try await c.http.send("GET", "/api/v1/bottles/\(password)/messages", token: carol).object["messages"] as? [[String: Any]] ?? []
            return messages.first { $0["text"] as? String == line }
        }
        if atC == nil { try await Self.dump(nodes, processes) }
        #expect(atC?["language"] as? String == "en-GB", "\(String(describing: atC))")
        let replica = try await Self.eventually(.seconds(150)) { () -> [String: Any]? in
            let lines = try await a.http.send("GET", "/api/v1/mesh/chats/\(password)/lines", token: alice).object["lines"] as? [[String: Any]] ?? []
            return lines.first { $0["text"] as? String == line }
        }
        #expect(replica?["language"] as? String == "en-GB", "the relayed line lost its language: \(String(describing: replica))")
        // C relays to box A, not to Alice: another visitor at A, never admitted, reads nothing.
        let dave = try await a.http.newVisitor()
        let stranger = try await a.http.send("GET", "/api/v1/mesh/chats/\(password)/lines", token: dave)
        #expect(stranger.status == 403 && stranger.body.contains("not_admitted") && !stranger.body.contains(line), "\(stranger)")
    }
}
