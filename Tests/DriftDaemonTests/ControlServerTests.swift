import DriftDaemon
import Foundation
import Logging
import ServiceLifecycle
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Control socket")
struct ControlServerTests {
    struct Echo: Codable, Sendable, Equatable { var said: String }

    /// How long a test client waits for its answer: the event, with a generous limit. The
    /// CLI's 5 s ran out in CI in the first seconds of the suite, when a thousand tests start
    /// at once on two cores and the server's accept waits its turn.
    static let patience: Int32 = 60_000

    func withServer(_ body: @Sendable (String) async throws -> Void) async throws {
        let directory = try TemporaryDirectory(prefix: "control")
        defer { directory.remove() }
        let path = directory.appending("driftd.sock")
        var commands = ControlCommands()
        commands.register("echo") { arguments in Echo(said: arguments["text"] ?? "") }
        commands.register("fail") { _ -> Echo in throw ControlError(code: "nope", message: "failed on purpose") }
        let server = ControlServer(path: path, commands: commands, logger: Logger(label: "test"))
        let group = ServiceGroup(services: [server], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // Wait for the socket to appear.
            for _ in 0..<200 where !FileManager.default.fileExists(atPath: path) {
                try await Task.sleep(for: .milliseconds(10))
            }
            try await body(path)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        #expect(!FileManager.default.fileExists(atPath: path), "socket file removed on shutdown")
    }

    @Test("answers commands, unknown commands and bad JSON; socket is owner-only")
    func roundTrip() async throws {
        try await withServer { path in
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)

            let answer = try await runBlocking { try ControlClient.send(ControlRequest(command: "echo", arguments: ["text": "hi"]), to: path, timeoutMilliseconds: Self.patience) }
            #expect(String(decoding: answer, as: UTF8.self) == #"{"result":{"said":"hi"}}"#)

            let unknown = try await runBlocking { try ControlClient.send(ControlRequest(command: "dance"), to: path, timeoutMilliseconds: Self.patience) }
            #expect(String(decoding: unknown, as: UTF8.self).contains(#""code":"unknown_command""#))

            let failed = try await runBlocking { try ControlClient.send(ControlRequest(command: "fail"), to: path, timeoutMilliseconds: Self.patience) }
            #expect(String(decoding: failed, as: UTF8.self) == #"{"error":{"code":"nope","message":"failed on purpose"}}"#)
        }
    }

    @Test("several clients at once are all answered")
    func concurrentClients() async throws {
        try await withServer { path in
            try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        let data = try await runBlocking { try ControlClient.send(ControlRequest(command: "echo", arguments: ["text": "\(index)"]), to: path, timeoutMilliseconds: Self.patience) }
                        return String(decoding: data, as: UTF8.self)
                    }
                }
                var answers = Set<String>()
                for try await answer in group { answers.insert(answer) }
                #expect(answers.count == 20)
            }
        }
    }

    @Test("a client that sends garbage gets a clear error")
    func badRequest() async throws {
        let commands = ControlCommands()
        let answer = await commands.respond(to: Data("not json".utf8))
        #expect(String(decoding: answer, as: UTF8.self).contains("bad_request"))
    }

    @Test("a stale socket file is replaced; a live one is refused")
    func staleAndLive() async throws {
        try await withServer { path in
            let second = ControlServer(path: path, commands: ControlCommands(), logger: Logger(label: "test"))
            #expect(throws: (any Error).self) { _ = try second.bind() }
        }
        // A stale socket (bound, never listening, closed) is replaced.
        let directory = try TemporaryDirectory(prefix: "stale")
        defer { directory.remove() }
        let path = directory.appending("driftd.sock")
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        close(fd)
        let server = ControlServer(path: path, commands: ControlCommands(), logger: Logger(label: "test"))
        let socket = try server.bind()
        #expect(FileManager.default.fileExists(atPath: socket.path))
    }
}

@Suite("Control protocol under hostile input")
struct ControlProtocolFuzzTests {
    @Test("random and malformed request lines get an error line, never a crash")
    func randomLines() async {
        var commands = ControlCommands()
        commands.register("echo") { arguments in ["said": arguments["text"] ?? ""] }
        var generator = SystemRandomNumberGenerator()
        let shapes = [
            "", "{", "}", "null", "[]", "{\"command\":1}", "{\"command\":\"echo\",\"arguments\":[1]}",
            "{\"command\":\"echo\",\"arguments\":{\"text\":5}}", "{\"command\":\"\u{0}\"}", String(repeating: "[", count: 10_000),
        ]
        for shape in shapes {
            let answer = await commands.respond(to: Data(shape.utf8))
            #expect(String(decoding: answer, as: UTF8.self).contains("\"error\""), "\(shape.prefix(40))")
        }
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0...200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let answer = await commands.respond(to: Data(bytes))
            #expect(answer.first == UInt8(ascii: "{"))
        }
    }
}
