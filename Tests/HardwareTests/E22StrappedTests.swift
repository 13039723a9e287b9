import DriftSystem
import Foundation
import Hardware
import TestSupport
import Testing

@Suite("E22 with M0/M1 strapped to normal mode (no GPIO): real pty, loopback UDP")
struct E22StrappedTests {
    @Test("the driver sends no register command, and frames go both ways through a strapped module")
    func strappedExchange() async throws {
        let boxAt = E22Rig.transmitter(at: 0)
        let peerAt = E22Rig.transmitter(at: 300)
        // Each radio must name the other's port at creation, so the peer's port is probed, freed
        // and bound again; a test running in parallel may take it in between (seen once in a
        // full suite: "Address already in use"): then the pair is made again on new ports.
        var pair: (air: SimulatedRadio, peer: SimulatedRadio)?
        for _ in 0..<10 where pair == nil {
            let probe = try SimulatedRadio(configuration: .init(port: 0, peers: [], transmitter: peerAt, medium: E22Rig.medium))
            let peerPort = probe.port
            probe.close()
            let air = try SimulatedRadio(configuration: .init(port: 0, peers: [("127.0.0.1", peerPort)], transmitter: boxAt, medium: E22Rig.medium))
            if let peer = try? SimulatedRadio(configuration: .init(port: peerPort, peers: [("127.0.0.1", air.port)], transmitter: peerAt, medium: E22Rig.medium)) {
                pair = (air, peer)
            } else {
                air.close()
            }
        }
        let (air, peer) = try #require(pair, "no free pair of loopback ports in 10 tries")
        defer { peer.close() }
        let registers = E22Radio.Configuration(portPath: "", registers: E22Rig.registers()).effectiveRegisters
        let module = try E22StrappedModule(registers: registers, air: air)
        defer { module.stop() }
        let radio = try E22Radio(configuration: .init(portPath: module.slavePath, registers: E22Rig.registers(), commandTimeout: .seconds(30)),
                                 lines: nil)
        defer { radio.close() }
        #expect(radio.isStrapped)

        try await e22Within { try await radio.start() }
        #expect(radio.isReady)
        #expect(radio.registersReadBack == nil)
        #expect(module.emulator.counters.commands == 0)
        #expect(module.emulator.mode == .normal)

        let out = (0..<120).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
        let heardByPeer = try await e22Within {
            async let heard = peer.receive()
            try await radio.transmit(out, airtime: .milliseconds(20))
            return try await heard
        }
        #expect(heardByPeer?.bytes == out)

        let back: [UInt8] = Array("strapped and still talking".utf8)
        let heardByBox = try await e22Within {
            async let heard = radio.receive()
            try await peer.transmit(back, airtime: .milliseconds(20))
            return try await heard
        }
        #expect(heardByBox?.bytes == back)
        #expect(module.emulator.counters.commands == 0)
        #expect(radio.counters.starts == 1)
    }
}
