import DriftConfig
@testable import DriftDaemon
import DriftMesh
import DriftStore
import Foundation
import Hardware
import Logging
import TestSupport
import Testing

/// The E22 prints each packet it hears followed by its RSSI byte, and a packet ends at a UART
/// silence. Two packets printed within one idle gap — or found together in the UART's buffer
/// by a reader a busy CPU kept from reading for longer than the gap — arrive as one burst.
/// Over a real pseudo-terminal, with the radio the daemon builds for a strapped module.
@Suite("E22 packets run together in one burst")
struct E22BurstTests {
    static func config(port: String) throws -> DriftConfiguration {
        var config = try ConfigLoader(systemBoardDirectories: []).load(
            text: DriftConfiguration.embeddedDefaultText, fileName: "test.toml", baseDirectory: nil).configuration
        config.radio.kind = .e22
        config.radio.port = port
        config.e22.m0 = ""
        config.e22.m1 = ""
        config.radio.frequencyMHz = 869.125  // an E22 channel in the EU band
        return config
    }

    static func frames(_ config: DriftConfiguration) throws -> [[UInt8]] {
        let sealer = try MeshSealer(networkKey: config.mesh.networkKey)
        let expiry = UInt32(Date().timeIntervalSince1970 / 60) + 60
        return try [(1, 40), (2, 120)].map { id, size in
            try sealer.seal(header: MeshHeader(kind: .broadcast, origin: NodeID(0x0A0B_0C0D), packetID: id, destination: nil,
                                               hopStart: 3, wantsAck: false, fragment: nil, expiresAtMinute: expiry),
                            plaintext: (0..<size).map { UInt8(truncatingIfNeeded: $0 * 13 + Int(id)) })
        }
    }

    /// Writes `frames`, each followed by its RSSI byte, in one write (no gap between them),
    /// and returns what `radio` hands on.
    static func hear(_ frames: [[UInt8]], rssiBytes: [UInt8], on radio: E22Radio, pty: PseudoTerminalPair,
                     count: Int) async throws -> [RadioReception] {
        try await radio.start()
        #expect(try await pty.waitUntilRaw(), "the driver never opened the UART")
        try pty.write(zip(frames, rssiBytes).flatMap { $0 + [$1] })
        var heard: [RadioReception] = []
        for _ in 0..<count {
            let reception = try await withinTimeLimit(.seconds(30)) { try await radio.receive() }
            heard.append(try #require(reception ?? nil))
        }
        return heard
    }

    @Test("the daemon's E22 radio hands on each frame of a burst with its own RSSI byte")
    func split() async throws {
        let pty = try PseudoTerminalPair()
        let config = try Self.config(port: pty.slavePath)
        let radio = try MeshSetup.e22Radio(config)
        defer { radio.close() }
        let frames = try Self.frames(config)
        let heard = try await Self.hear(frames, rssiBytes: [0xB4, 0xA0], on: radio, pty: pty, count: 2)
        #expect(heard.map(\.bytes) == frames)
        #expect(heard.map(\.rssi) == [E22Registers.dBm(rssiByte: 0xB4), E22Registers.dBm(rssiByte: 0xA0)])
        #expect(radio.counters.split == 1)
        #expect(radio.splitBursts == 1, "shown in mesh status")
        #expect(radio.counters.received == 2)
        #expect(radio.counters.malformed == 0)
    }

    @Test("a frame run together with another network's packet is handed on, the other packet beside it")
    func besideAForeignPacket() async throws {
        let pty = try PseudoTerminalPair()
        let config = try Self.config(port: pty.slavePath)
        let radio = try MeshSetup.e22Radio(config)
        defer { radio.close() }
        let ours = try Self.frames(config)[0]
        // A box of another camp's mesh on the same channel: the same frame layout, another key.
        var other = config
        other.mesh.networkKey = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 5) }
        let theirs = try Self.frames(other)[1]
        let heard = try await Self.hear([theirs, ours], rssiBytes: [0x90, 0xB4], on: radio, pty: pty, count: 2)
        #expect(heard.map(\.bytes) == [theirs, ours])
        #expect(heard.map(\.rssi) == [E22Registers.dBm(rssiByte: 0x90), E22Registers.dBm(rssiByte: 0xB4)])
        let sealer = try MeshSealer(networkKey: config.mesh.networkKey)
        #expect(throws: MeshWireError.wrongNetwork(hint: try MeshSealer(networkKey: other.mesh.networkKey).networkHint)) {
            try sealer.open(heard[0].bytes)
        }
        #expect((try? sealer.open(heard[1].bytes)) != nil, "our frame opens")
        #expect(radio.counters.split == 1)
        #expect(radio.counters.malformed == 0)
    }

    @Test("a strapped module's answer to the start's RSSI read, run together with a packet before or after it, answers the read and the packet goes on")
    func answerRunTogetherWithAPacket() async throws {
        let frames = try Self.frames(try Self.config(port: "/dev/null"))
        let answer: [UInt8] = [0xC1, 0x00, 0x02, 0x96, 0xA0]
        for answerFirst in [true, false] {
            let pty = try PseudoTerminalPair()
            let config = try Self.config(port: pty.slavePath)
            // The read waits 30 s for its answer, not the driver's 1 s: the test answers, on a loaded CPU.
            let radio = try MeshSetup.e22Radio(config, answerTimeout: .seconds(30))
            defer { radio.close() }
            try await withinTimeLimit(.seconds(30)) { try await radio.start() }
            #expect(radio.idleProbe == .checking)
            // The read the driver sends a strapped module after its start, then the answer and a packet in one write.
            #expect(try await pty.read(until: [0xC0, 0xC1, 0xC2, 0xC3, 0x00, 0x02], timeout: .seconds(30)).suffix(6)
                    == [0xC0, 0xC1, 0xC2, 0xC3, 0x00, 0x02])
            let packet = frames[0] + [0xB4]
            try pty.write(answerFirst ? answer + packet : packet + answer)
            let heard = try await withinTimeLimit(.seconds(30)) { try await radio.receive() }
            #expect((heard ?? nil)?.bytes == frames[0], "answer first: \(answerFirst)")
            #expect(try await eventually { radio.idleProbe == .on }, "answer first: \(answerFirst): \(radio.idleProbe)")
        }
    }

    @Test("mesh status shows whether the E22 module is probed: a strapped one that does not answer the read is not")
    func idleProbeInStatus() async throws {
        let pty = try PseudoTerminalPair()
        let config = try Self.config(port: pty.slavePath)
        let radio = try MeshSetup.e22Radio(config)
        defer { radio.close() }
        let directory = try TemporaryDirectory(prefix: "e22-status")
        defer { directory.remove() }
        let node = try MeshNodeTests.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")))
        let service = MeshService(node: node, radio: radio, health: HealthRegistry(), logger: Logger(label: "test"))
        try await withinTimeLimit(.seconds(30)) { try await radio.start() }
        // (Off already if the machine stalled past the driver's 1 s before this look.)
        #expect(["checking", "off"].contains(await service.status().radioIdleProbe))
        // Nobody answers the read on this pty: after the RSSI timeout the probe is off, and the radio still up.
        #expect(try await eventually { radio.idleProbe == .off })
        let status = await service.status()
        #expect(status.radioIdleProbe == "off")
        #expect(radio.isReady)
        let json = String(decoding: try JSONEncoder().encode(status), as: UTF8.self)
        #expect(json.contains(#""radioIdleProbe":"off""#), "\(json)")
    }

    @Test("a module that prints packets without their RSSI byte is named as the cause, not counted as forgeries")
    func withoutRSSIByte() async throws {
        let pty = try PseudoTerminalPair()
        let config = try Self.config(port: pty.slavePath)
        let radio = try MeshSetup.e22Radio(config)
        defer { radio.close() }
        let frames = try Self.frames(config)
        try await radio.start()
        #expect(try await pty.waitUntilRaw(), "the driver never opened the UART")
        try pty.write(frames[1])
        let error = await #expect(throws: E22Error.self) {
            _ = try await withinTimeLimit(.seconds(30)) { try await radio.receive() }
        }
        #expect(error == .rssiByteMissing)
        #expect(error?.description.contains("REG3 bit 7") == true, "the fix is named")
        #expect(error?.description.contains("driftd e22 program") == true, "the command is named")
        #expect(radio.counters.withoutRSSIByte == 1)
        #expect(radio.counters.received == 0)

        // Two such packets run together are named the same way, not counted as one forgery
        // (the radio starts again first, as the mesh service's next receive would).
        try await withinTimeLimit(.seconds(30)) { try await radio.start() }
        try pty.write(frames[0] + frames[1])
        let again = await #expect(throws: E22Error.self) {
            _ = try await withinTimeLimit(.seconds(30)) { try await radio.receive() }
        }
        #expect(again == .rssiByteMissing)
        #expect(radio.counters.withoutRSSIByte == 2)
        #expect(radio.counters.received == 0)
    }

    @Test("without the mesh's check the burst is one packet that opens as nothing: both frames lost")
    func lostWithoutTheCheck() async throws {
        let pty = try PseudoTerminalPair()
        let config = try Self.config(port: pty.slavePath)
        let radio = try E22Radio(configuration: MeshSetup.e22Radio(config).configuration, lines: nil)
        defer { radio.close() }
        let frames = try Self.frames(config)
        let heard = try await Self.hear(frames, rssiBytes: [0xB4, 0xA0], on: radio, pty: pty, count: 1)
        #expect(heard.first?.bytes == frames[0] + [0xB4] + frames[1])
        let sealer = try MeshSealer(networkKey: config.mesh.networkKey)
        #expect(throws: MeshWireError.authenticationFailed) { try sealer.open(heard[0].bytes) }
        #expect(radio.counters.split == 0)
    }
}
