@testable import DriftDaemon
import DriftConfig
import Foundation
import Hardware
import TestSupport
import Testing

/// `driftd selftest` with `radio.kind = "meshtastic"`: the handshake against a node
/// played on a real pseudo-terminal.
@Suite("selftest: Meshtastic node")
struct SelftestMeshtasticTests {
    func config(port: String, dataDir: String) throws -> DriftConfiguration {
        let text = DriftConfiguration.embeddedDefaultText.replacingOccurrences(
            of: "kind = \"sim\"\nport = \"sim\"\nbaud = 9600", with: "kind = \"meshtastic\"\nport = \"\(port)\"\nbaud = 115200")
        return try ConfigLoader(systemBoardDirectories: []).load(text: text, fileName: "test.toml", baseDirectory: nil)
            .configuration.applying(dataDirectory: dataDir)
    }

    /// Answers one `want_config_id` as a node would (debug text, my_info, metadata, config_complete_id).
    static func answerHandshake(on pty: PseudoTerminalPair, firmware: String) async throws {
        var decoder = MeshtasticFrameDecoder()
        let deadline = ContinuousClock.now + .seconds(40)
        while ContinuousClock.now < deadline {
            let bytes = try await pty.read(count: 1, timeout: .milliseconds(200))
            for event in decoder.push(bytes) {
                guard case .frame(let payload) = event, case .wantConfigID(let nonce)? = try MeshtasticToRadio.decode(payload) else { continue }
                func send(_ variant: MeshtasticFromRadio.Variant) throws {
                    try pty.write(MeshtasticFraming.frame(MeshtasticFromRadio(id: 1, variant).encoded()))
                }
                try pty.write(Array("DEBUG | hello\n".utf8))
                try send(.myInfo(MeshtasticMyNodeInfo(myNodeNum: 0x0BAD_CAFE)))
                try send(.metadata(MeshtasticDeviceMetadata(firmwareVersion: firmware)))
                try send(.configCompleteID(nonce))
                return
            }
        }
    }

    @Test("a node that answers the handshake passes with its id and firmware; a silent port fails with the reason")
    func meshtasticCheck() async throws {
        let directory = try TemporaryDirectory(prefix: "selftest")
        defer { directory.remove() }
        let pty = try PseudoTerminalPair()
        defer { pty.closeMaster() }
        var selftest = Selftest(config: try config(port: pty.slavePath, dataDir: directory.path), environment: [:])
        selftest.meshtasticListen = .seconds(40)
        let node = Task { try await Self.answerHandshake(on: pty, firmware: "2.5.6.d55c08d") }
        let check = await selftest.radioCheck()
        try await node.value
        #expect(check.status == .pass, "\(check.detail)")
        #expect(check.detail.contains("Meshtastic node !0badcafe answers"), "\(check.detail)")
        #expect(check.detail.contains("firmware 2.5.6.d55c08d"), "\(check.detail)")

        let silent = try PseudoTerminalPair()
        defer { silent.closeMaster() }
        var quiet = Selftest(config: try config(port: silent.slavePath, dataDir: directory.path), environment: [:])
        quiet.meshtasticListen = .milliseconds(500)
        let failed = await quiet.radioCheck()
        #expect(failed.status == .fail)
        #expect(failed.detail.contains("no Meshtastic node connected"), "\(failed.detail)")
    }
}
