import Foundation
import Hardware
import Testing
import TestSupport

/// Conformance with the `meshtastic` package from PyPI: bytes our driver wrote decode with
/// the package's generated protobuf classes, and messages the package builds decode in our
/// codec to the same values.
///
/// The package lives in a virtualenv cached at `.build/python-meshtastic/` (made by
/// `scripts/meshtastic-venv.sh`, which `make build-tests` runs; this test makes it itself
/// when it is missing). Skipped with a printed reason only when PyPI cannot be reached and
/// no cached virtualenv exists — except under CI (`CI` set), where that is a failure.
@Suite("Meshtastic conformance with the PyPI package")
struct MeshtasticConformanceTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let script = repositoryRoot + "/Tests/HardwareTests/Conformance/meshtastic_conformance.py"

    struct PythonFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs a program, returns (status, stdout, stderr).
    static func run(_ executable: String, _ arguments: [String]) async throws -> (Int32, String, String) {
        // The first run may build the virtualenv from PyPI: minutes, not seconds.
        let run = try await CapturedRun.run(executable, arguments, timeout: .seconds(480))
        return (run.status, run.stdout, run.stderr)
    }

    /// The venv's python with `meshtastic` importable, or why there is none.
    static func python() async throws -> Result<String, PythonFailed> {
        let setup = repositoryRoot + "/scripts/meshtastic-venv.sh"
        let (status, out, err) = try await run("/bin/bash", [setup])
        let path = out.split(separator: "\n").last.map(String.init) ?? ""
        if status == 0, FileManager.default.isExecutableFile(atPath: path) { return .success(path) }
        return .failure(PythonFailed(description: "scripts/meshtastic-venv.sh exited \(status): \(err.suffix(2_000))"))
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            out.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return out
    }

    @Test("frames our driver writes decode with the package, and frames the package builds decode in our driver", .timeLimit(.minutes(10)))
    func bothDirections() async throws {
        let python: String
        switch try await Self.python() {
        case .success(let path):
            python = path
        case .failure(let problem):
            if ProcessInfo.processInfo.environment["CI"] != nil {
                Issue.record("the meshtastic package is required under CI: \(problem)")
            } else {
                print("SKIP Meshtastic conformance: no cached virtualenv and PyPI unreachable — \(problem)")
            }
            return
        }

        // (a) What our driver writes, captured on the emulator's side of a real pty.
        let node = try MeshtasticNodeEmulator()
        defer { node.stop() }
        var configuration = MeshtasticRadioTests.configuration(node.slavePath, textChannel: 1)
        configuration.heartbeatInterval = .milliseconds(200)
        let radio = MeshtasticRadio(configuration: configuration)
        async let _ = radio.run()
        let frame: [UInt8] = [0xD1] + Array(0..<120) + [0xFF, 0x00, 0x94, 0xC3]
        try await radio.transmit(frame, airtime: .zero)
        try await radio.publishText("⛺ Camp Nord: bottle notice")
        #expect(try await MeshtasticRadioTests.eventually {
            node.packets.count == 2 && node.received.contains { if case .heartbeat = $0 { true } else { false } }
        })
        radio.close()
        _ = try await MeshtasticRadioTests.eventually { node.received.contains(.disconnect) }

        let (status, out, err) = try await Self.run(python, [Self.script, "decode", Self.hex(node.rawInput)])
        #expect(status == 0, "\(err)")
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]], "\(out) \(err)")
        let kinds = decoded.compactMap { $0["kind"] as? String }
        #expect(kinds.first == "want_config_id")
        #expect(kinds.contains("heartbeat"))
        #expect(kinds.contains("disconnect"))
        if case .wantConfigID(let nonce)? = node.received.first {
            #expect((decoded.first?["value"] as? NSNumber)?.uint32Value == nonce)
        }
        let packets = decoded.filter { $0["kind"] as? String == "packet" }
        #expect(packets.count == 2)
        if packets.count == 2 {
            #expect(packets[0]["portnum_name"] as? String == "PRIVATE_APP")
            #expect((packets[0]["portnum"] as? NSNumber)?.intValue == 256)
            #expect(packets[0]["payload"] as? String == Self.hex(frame))
            #expect((packets[0]["to"] as? NSNumber)?.uint32Value == 0xFFFF_FFFF)
            #expect((packets[0]["hop_limit"] as? NSNumber)?.intValue == 4)
            #expect(packets[0]["want_ack"] as? Bool == false)
            #expect(packets[1]["portnum_name"] as? String == "TEXT_MESSAGE_APP")
            #expect(packets[1]["text"] as? String == "⛺ Camp Nord: bottle notice")
            #expect((packets[1]["channel"] as? NSNumber)?.intValue == 1)
        }

        // (b) What the package builds, decoded by our codec.
        let (buildStatus, built, buildErr) = try await Self.run(python, [Self.script, "build"])
        #expect(buildStatus == 0, "\(buildErr)")
        let messages = try #require(try JSONSerialization.jsonObject(with: Data(built.utf8)) as? [String: String], "\(built) \(buildErr)")
        func decode(_ key: String) throws -> MeshtasticFromRadio {
            try MeshtasticFromRadio(decoding: Self.bytes(messages[key] ?? ""))
        }
        #expect(try decode("packet") == MeshtasticFromRadio(id: 7, .packet(MeshtasticMeshPacket(
            from: 0xDEAD_BEEF, to: 0xFFFF_FFFF, channel: 2, decoded: MeshtasticData(portnum: 256, payload: Array(0..<200)),
            id: 0x0102_0304, rxTime: 1_760_000_000, rxSNR: 5.25, hopLimit: 2, wantAck: false, priority: 64, rxRSSI: -97, hopStart: 3))))
        guard case .packet(let text)? = try decode("text_packet").variant else {
            Issue.record("text_packet did not decode as a packet")
            return
        }
        #expect(text.decoded?.portnum == 1)
        #expect(text.decoded.map { String(decoding: $0.payload, as: UTF8.self) } == "Grüße vom Camp")
        #expect(try decode("my_info") == MeshtasticFromRadio(id: 1, .myInfo(MeshtasticMyNodeInfo(myNodeNum: 0x9A8B_7C6D, rebootCount: 12))))
        let metadata = try decode("metadata")
        #expect(metadata == MeshtasticFromRadio(id: 2, .metadata(MeshtasticDeviceMetadata(firmwareVersion: "2.5.6.d55c08d", deviceStateVersion: 23, hardwareModel: 43))))
        #expect(try decode("channel") == MeshtasticFromRadio(id: 3, .channel(MeshtasticChannel(index: 1, name: "DriftBox", role: .secondary))))
        #expect(try decode("config") == MeshtasticFromRadio(id: 4, .config(MeshtasticLoRaConfig(
            usePreset: true, modemPreset: 4, region: 3, hopLimit: 5, txEnabled: true, txPower: 20))))
        #expect(try decode("config_complete_id") == MeshtasticFromRadio(id: 5, .configCompleteID(0xCAFE_F00D)))
        #expect(try decode("queue_status") == MeshtasticFromRadio(id: 6, .queueStatus(MeshtasticQueueStatus(res: 0, free: 9, maxlen: 16, meshPacketID: 0x0102_0304))))
        #expect(try decode("rebooted") == MeshtasticFromRadio(id: 8, .rebooted(true)))

        // The package's frames in a stream with log text between them, through our framer.
        var decoder = MeshtasticFrameDecoder()
        let events = decoder.push(Self.bytes(messages["stream"] ?? ""))
        let frames = try events.compactMap { event -> MeshtasticFromRadio? in
            guard case .frame(let payload) = event else { return nil }
            return try MeshtasticFromRadio(decoding: payload)
        }
        #expect(frames.map(\.id) == [1, 2, 3, 5])
        #expect(decoder.logLines == 5)
    }
}
