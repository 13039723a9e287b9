import ArgumentParser
import DriftDaemon
import DriftMesh
import DriftStore
import Foundation
import Hardware
import Logging

extension Bench {
    /// `driftd bench mesh [--count N] [--json]`: the mesh's per-frame costs on this machine.
    struct MeshBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mesh",
            abstract: "Frames sealed, opened and relay-rewritten per second, frames taken in per second by the daemon's mesh node (SQLite seen-set and hold, synchronous=FULL), and E22 bursts read out per second.")

        @Option(help: "Frames per measurement.")
        var count = 2_000

        @Flag(help: "Print the figures as JSON.")
        var json = false

        func validate() throws {
            guard count > 0 else { throw ValidationError("--count must be positive") }
        }

        struct Result: Codable {
            var frames: Int
            var frameBytes: Int
            var sealPerSecond: Double
            var openPerSecond: Double
            var relayRewritePerSecond: Double
            var nodeReceivePerSecond: Double
            /// E22 bursts read out per second (`MeshSealer.packetsRunTogether`, RSSI byte after
            /// each packet): two frames of this network; a frame and another network's frame;
            /// a frame's header repeated over 240 bytes, which ends at the burst's budget of opens.
            var burstBursts: Int
            var burstTwoFramesPerSecond: Double
            var burstBesideForeignPerSecond: Double
            var burstShapedPerSecond: Double
        }

        func run() async throws {
            let key = (0..<32).map { UInt8($0) }
            let sealer = try MeshSealer(networkKey: key)
            let origin = BoxKeyPair()
            let body = [UInt8](repeating: 0x41, count: 150)
            let expiry = MeshHeader.expiryMinute(now: Date(), lifetime: 3_600)
            let headers = (0..<count).map {
                MeshHeader(kind: .broadcast, origin: origin.nodeID, packetID: UInt32($0 + 1), hopStart: 3, expiresAtMinute: expiry)
            }
            let clock = ContinuousClock()

            var frames: [[UInt8]] = []
            frames.reserveCapacity(count)
            let sealTime = try clock.measure {
                for header in headers { frames.append(try sealer.seal(header: header, plaintext: MeshMessage(port: 1, body: body).encoded)) }
            }
            var opened = 0
            let openTime = try clock.measure {
                for frame in frames { opened += try sealer.open(frame).plaintext.count }
            }
            let relayer = BoxKeyPair().nodeID
            let relayTime = try clock.measure {
                for frame in frames { _ = try MeshFrameCodec.relay(frame, by: relayer) }
            }

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("driftd-bench-mesh-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let database = try DriftDatabase.open(path: directory + "/drift.sqlite")
            let settings = MeshNode.Settings(hopLimit: 3, messageLifetime: 3_600, modulation: .longFast, router: .standard)
            let node = try MeshNode(keyPair: BoxKeyPair(), networkKey: key, store: MeshStore(database: database),
                                    budget: AirtimeBudget(window: .seconds(3_600), limit: .seconds(360)), settings: settings,
                                    logger: Logger(label: "bench"))
            let receiveStart = clock.now
            for frame in frames { await node.receive(RadioReception(bytes: frame, rssi: -100, snr: 3)) }
            let receiveTime = clock.now - receiveStart

            func rate(_ d: Duration, _ n: Int = count) -> Double { Double(n) / (Double(d.components.attoseconds) / 1e18 + Double(d.components.seconds)) }

            // E22 bursts: packets printed within one UART idle gap, each followed by its RSSI byte.
            let bursts = max(1, count / 10)
            let foreign = try MeshSealer(networkKey: key.map { $0 ^ 0x5A })
            let theirs = try foreign.seal(header: headers[0], plaintext: MeshMessage(port: 1, body: body).encoded)
            let twoFrames = frames[0] + [0xB4] + frames[frames.count > 1 ? 1 : 0] + [0xB0]
            let besideForeign = theirs + [0x90] + frames[0] + [0xB4]
            // A real frame's header repeated: every 16th position starts as a frame of this network would.
            let shaped = Array(Array(repeating: Array(frames[0].prefix(MeshFrameCodec.fixedHeaderBytes)), count: 15).joined()) + [0x80]
            func burstTime(_ burst: [UInt8], expectParts: Int) throws -> Duration {
                try clock.measure {
                    for _ in 0..<bursts {
                        let parts = sealer.packetsRunTogether(in: burst, trailerBytes: 1)?.count ?? 0
                        guard parts == expectParts else { throw ValidationError("a burst read out as \(parts) packets, not \(expectParts)") }
                    }
                }
            }
            let twoFramesTime = try burstTime(twoFrames, expectParts: 2)
            let besideForeignTime = try burstTime(besideForeign, expectParts: 2)
            let shapedTime = try burstTime(shaped, expectParts: 0)

            let result = Result(frames: count, frameBytes: frames.first?.count ?? 0, sealPerSecond: rate(sealTime), openPerSecond: rate(openTime),
                                relayRewritePerSecond: rate(relayTime), nodeReceivePerSecond: rate(receiveTime), burstBursts: bursts,
                                burstTwoFramesPerSecond: rate(twoFramesTime, bursts), burstBesideForeignPerSecond: rate(besideForeignTime, bursts),
                                burstShapedPerSecond: rate(shapedTime, bursts))
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
                print(String(decoding: try encoder.encode(result), as: UTF8.self))
                return
            }
            print("driftd bench mesh — \(count) broadcast frames of \(result.frameBytes) bytes")
            print(String(format: "seal (ChaCha20-Poly1305)        %10.0f frames/s", result.sealPerSecond))
            print(String(format: "open                            %10.0f frames/s", result.openPerSecond))
            print(String(format: "relay rewrite (no key)          %10.0f frames/s", result.relayRewritePerSecond))
            print(String(format: "node receive (SQLite, durable)  %10.0f frames/s", result.nodeReceivePerSecond))
            print(String(format: "LongFast carries at most          %8.2f frames/s", 1 / LoRaAirtime.seconds(payloadBytes: result.frameBytes, modulation: .longFast)))
            print("E22 bursts read out (\(bursts) each, RSSI byte after each packet):")
            print(String(format: "  two frames run together       %10.0f bursts/s", result.burstTwoFramesPerSecond))
            print(String(format: "  beside another network's frame %9.0f bursts/s", result.burstBesideForeignPerSecond))
            print(String(format: "  a header repeated (%d opens at most) %4.0f bursts/s", MeshSealer.maximumOpensPerBurst, result.burstShapedPerSecond))
        }
    }
}
