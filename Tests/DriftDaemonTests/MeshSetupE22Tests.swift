@testable import DriftDaemon
import DriftConfig
import DriftMesh
import Foundation
import Hardware
import Testing

/// How the daemon turns `[radio]` + `[e22]` into the module's registers and the mesh's airtime.
@Suite("mesh setup for an E22")
struct MeshSetupE22Tests {
    func config(_ replacements: [(String, String)] = [], baud: Int = 9600) throws -> DriftConfiguration {
        var text = DriftConfiguration.embeddedDefaultText
        for (old, new) in [("[radio]\nkind = \"sim\"\nport = \"sim\"\nbaud = 9600", "[radio]\nkind = \"e22\"\nport = \"/dev/ttyS0\"\nbaud = \(baud)"),
                           ("frequency_mhz = 869.525", "frequency_mhz = 868.125")] + replacements {
            #expect(text.contains(old), "fixture lacks \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return try ConfigLoader(systemBoardDirectories: []).load(text: text, fileName: "test.toml", baseDirectory: nil).configuration
    }

    @Test("registers come from the configuration; TX power is the module's nearest")
    func registers() throws {
        let config = try config([("address = 0 ", "address = 4660 "), ("net_id = 0 ", "net_id = 9 "), ("sub_packet_bytes = 240", "sub_packet_bytes = 128"),
                                 ("lbt = false", "lbt = true"), ("air_rate_kbps = 2.4", "air_rate_kbps = 9.6")], baud: 115_200)
        let (registers, band) = try MeshSetup.e22Registers(config)
        #expect(band == .mhz900)
        #expect(registers.channel == 18)
        #expect(registers.address == 0x1234)
        #expect(registers.netID == 9)
        #expect(registers.subPacketBytes == 128)
        #expect(registers.listenBeforeTalk)
        #expect(registers.airRate == .kbps9_6)
        #expect(registers.baudRate == 115_200)
        #expect(registers.txPowerDBm == 13)   // radio.tx_power_dbm = 14
    }

    @Test("the mesh's airtime uses the E22 air rate, not [radio]'s LoRa settings")
    func airtime() throws {
        let modulation = try MeshSetup.modulation(for: config())
        #expect(modulation.spreadingFactor == 9)
        #expect(modulation.bandwidthHz == 125_000)
        #expect(modulation.preambleSymbols == 8)
        #expect(try MeshSetup.effectiveRadio(config()).bandwidthKHz == 125)
        // The simulated radio keeps [radio]'s settings.
        let sim = try ConfigLoader(systemBoardDirectories: []).load(
            text: DriftConfiguration.embeddedDefaultText, fileName: "test.toml", baseDirectory: nil).configuration
        #expect(try MeshSetup.modulation(for: sim).spreadingFactor == 11)
    }

    @Test("left out, the hello period follows the channel's duty cycle: 900 s for an E22 at 868.125 MHz (1 %), 300 s at 869.525 MHz (10 %); a set one is kept")
    func helloPeriodByDutyCycle() throws {
        let e22 = try config()
        #expect(e22.mesh.helloIntervalS == nil)
        #expect(MeshSetup.helloPeriod(e22, policy: try MeshSetup.policy(MeshSetup.effectiveRadio(e22))) == .seconds(900))
        let sim = try ConfigLoader(systemBoardDirectories: []).load(
            text: DriftConfiguration.embeddedDefaultText, fileName: "test.toml", baseDirectory: nil).configuration
        #expect(MeshSetup.helloPeriod(sim, policy: try MeshSetup.policy(MeshSetup.effectiveRadio(sim))) == .seconds(300))
        let set = try config([("# hello_interval_s = 300 ", "hello_interval_s = 420 ")])
        #expect(MeshSetup.helloPeriod(set, policy: try MeshSetup.policy(MeshSetup.effectiveRadio(set))) == .seconds(420))
    }

    @Test("mesh.topology_plan turns relays planned on the topology on, late planned relays taken back after 15 s, also when the radio is free; its adverts keep pace with the hellos: 3 h and 10 min at 300 s, 9 h and 30 min at an E22's 900 s; the first hello within a tenth of the hello period")
    func topologyPlanPacedByHellos() throws {
        let e22 = try config([("topology_plan = false", "topology_plan = true ")])
        let e22Period = MeshSetup.helloPeriod(e22, policy: try MeshSetup.policy(MeshSetup.effectiveRadio(e22)))
        let routing = MeshSetup.routing(e22, helloPeriod: e22Period, modulation: try MeshSetup.modulation(for: e22))
        #expect(routing.topologyPlan)
        #expect(routing.topologyPeriod == .seconds(9 * 3_600))
        #expect(routing.topologyMinimumInterval == .seconds(1_800))
        #expect(routing.helloPeriod == .seconds(900))
        #expect(routing.helloJitter == .seconds(90) && routing.firstHelloSpread == .seconds(90), "the first hello within a tenth of the period")
        #expect(routing.topologyPlannedRelayLateAfter == .seconds(15), "a planned relay the budget holds is taken back by copies")
        #expect(routing.topologyPlannedRelayLateCheckedBeforeSending, "and checked when the radio is free")
        let sim = try ConfigLoader(systemBoardDirectories: []).load(
            text: DriftConfiguration.embeddedDefaultText, fileName: "test.toml", baseDirectory: nil).configuration
        let standard = MeshSetup.routing(sim, helloPeriod: .seconds(300), modulation: try MeshSetup.modulation(for: sim))
        #expect(!standard.topologyPlan, "off unless the config turns it on")
        #expect(standard.firstHelloSpread == .seconds(30))
        #expect(standard.topologyPeriod == MeshRouterConfiguration.standard.topologyPeriod)
        #expect(standard.topologyMinimumInterval == MeshRouterConfiguration.standard.topologyMinimumInterval)
    }

    @Test("the camp announce interval, left out, follows the duty cycle: 3000 s for an E22 at 868.125 MHz (1 %), 300 s on the sim board; a set one is kept")
    func campAnnounceIntervalByDutyCycle() throws {
        let named = [("name = \"\"\nmembers = 0", "name = \"Kit\"\nmembers = 0")]
        let e22 = try config(named)
        #expect(e22.camp.announceIntervalS == nil)
        #expect(MeshSetup.dutyCycle(e22) == 0.01)
        #expect(CampSettings(config: e22, dutyCycle: MeshSetup.dutyCycle(e22)).announceInterval == .seconds(3_000))
        let sim = try ConfigLoader(systemBoardDirectories: []).load(
            text: DriftConfiguration.embeddedDefaultText, fileName: "test.toml", baseDirectory: nil).configuration
        #expect(CampSettings(config: sim, dutyCycle: MeshSetup.dutyCycle(sim)).announceInterval == .seconds(300))
        let set = try config(named + [("# announce_interval_s = 300 ", "announce_interval_s = 420 ")])
        #expect(CampSettings(config: set, dutyCycle: MeshSetup.dutyCycle(set)).announceInterval == .seconds(420))
    }

    @Test("the announce-interval rule: 300 s down to 10 %, 30 s ÷ the duty cycle below it, at most half the forget time, at least 300 s")
    func announceIntervalRule() {
        let day = Duration.seconds(86_400)
        #expect(CampSettings.announceInterval(dutyCycle: nil, forgetAfter: day) == .seconds(300))
        #expect(CampSettings.announceInterval(dutyCycle: 1, forgetAfter: day) == .seconds(300))
        #expect(CampSettings.announceInterval(dutyCycle: 0.1, forgetAfter: day) == .seconds(300))
        #expect(CampSettings.announceInterval(dutyCycle: 0.01, forgetAfter: day) == .seconds(3_000))
        #expect(CampSettings.announceInterval(dutyCycle: 0.001, forgetAfter: day) == .seconds(30_000))
        #expect(CampSettings.announceInterval(dutyCycle: 1e-12, forgetAfter: .seconds(30 * 86_400)) == day, "a tiny duty cycle: at most a day, no overflow")
        #expect(CampSettings.announceInterval(dutyCycle: 0.001, forgetAfter: .seconds(3_600)) == .seconds(1_800), "heard twice before forgotten")
        #expect(CampSettings.announceInterval(dutyCycle: 0.01, forgetAfter: .seconds(20)) == .seconds(300), "never below 300 s")
    }

    @Test("a UART baud the module lacks, or the simulated GPIO chip, is a clear problem")
    func problems() throws {
        #expect(throws: MeshSetup.Problem.self) { try MeshSetup.e22Registers(config(baud: 230_400)) }
        let problem = #expect(throws: MeshSetup.Problem.self) { try MeshSetup.e22Radio(config()) }
        #expect(problem?.description.contains("gpio.backend = libgpiod") == true)
    }
}
