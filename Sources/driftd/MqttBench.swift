import ArgumentParser
import DriftDaemon
import DriftSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension Bench {
    /// `driftd bench mqtt [--count N] [--host H --port P] [--json]`: what one gateway forwards.
    struct MqttBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mqtt",
            abstract: "Frames per second one gateway forwards mesh → broker (SQLite outbox, QoS 1, PUBACK) and each frame's delay to a subscriber.",
            discussion: """
                Without --port it starts Debian's Mosquitto (/usr/sbin/mosquitto) on a free loopback \
                port for the run; with --host/--port it uses that broker (topics under a random \
                bench-… prefix).
                """)

        @Option(help: "Frames to forward.")
        var count = 2_000

        @Option(help: "Broker host (with --port).")
        var host = "127.0.0.1"

        @Option(help: "Broker port; without it a Mosquitto is started on a free loopback port.")
        var port: Int?

        @Flag(help: "Print the figures as JSON.")
        var json = false

        func validate() throws {
            guard count > 0 else { throw ValidationError("--count must be positive") }
        }

        func run() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("driftd-bench-mqtt-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            var broker: ChildProcess?
            // Started with a clean signal mask (ChildProcess): SIGTERM here, and Ctrl-C on the
            // terminal's process group, reach it; it never outlives the bench.
            defer { broker?.terminate() }
            let brokerPort: Int
            if let port {
                brokerPort = port
            } else {
                (broker, brokerPort) = try Self.startMosquitto()
            }
            let result = try await GatewayBenchmark.run(host: host, port: brokerPort, count: count, directory: directory)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
                print(String(decoding: try encoder.encode(result), as: UTF8.self))
            } else {
                print("driftd bench mqtt — \(result.frames) frames of \(result.frameBytes) B, SQLite outbox, QoS 1, broker \(host):\(brokerPort)")
                print(String(format: "  received by a subscriber: %.0f frames/s (%d of %d)", result.receivedPerSecond, result.received, result.frames))
                print(String(format: "  acknowledged (PUBACK):    %.0f frames/s (%d; %d left in the outbox)",
                             result.acknowledgedPerSecond, result.acknowledged, result.outboxLeft))
                print(String(format: "  offer → subscriber:       p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                             result.delayP50Milliseconds, result.delayP99Milliseconds, result.delayMaxMilliseconds))
            }
            guard result.received == result.frames, result.acknowledged == result.frames, result.outboxLeft == 0 else {
                throw ExitCode(1)
            }
        }

        /// Starts `/usr/sbin/mosquitto -p PORT` (loopback only, anonymous) and waits until it accepts.
        static func startMosquitto() throws -> (ChildProcess, Int) {
            let executable = "/usr/sbin/mosquitto"
            guard FileManager.default.isExecutableFile(atPath: executable) else {
                throw ValidationError("no broker: \(executable) is not installed (apt-get install mosquitto), or pass --host/--port")
            }
            let (probe, port) = try TCPSocket.listenLoopback()
            try probe.close()
            let process = try ChildProcess(executable: executable, arguments: ["-p", "\(port)"])
            for _ in 0..<300 {
                if let socket = try? TCPSocket.connect(host: "127.0.0.1", port: port, timeoutMilliseconds: 200) {
                    try? socket.close()
                    return (process, port)
                }
                usleep(20_000)
            }
            process.terminate()
            throw ValidationError("mosquitto did not listen on 127.0.0.1:\(port)")
        }
    }
}
