import DriftConfig
import Foundation
import Testing

@Suite("Board profiles")
struct BoardProfileTests {
    @Test("every board file is a complete, valid config naming itself", arguments: ConfigFixtures.boardNames)
    func boardFileIsValid(name: String) throws {
        let path = ConfigFixtures.boardPath(name)
        let loaded = try ConfigFixtures.loader.load(path: path)
        #expect(loaded.configuration.box.board == name)
        // The profile is the file itself: no base is overlaid.
        #expect(loaded.files == [path])
        #expect(loaded.boardProfile == nil)
        #expect(ConfigReport.check(path: path, loader: ConfigFixtures.loader).exitCode == 0)
    }

    @Test("the embedded default is board/sim.toml byte for byte")
    func embeddedDefaultMatchesFile() throws {
        let file = try Data(contentsOf: URL(fileURLWithPath: ConfigFixtures.boardPath("sim")))
        #expect(Data(DriftConfiguration.embeddedDefaultText.utf8) == file)
    }

    @Test("the embedded default loads to the same configuration as board/sim.toml")
    func embeddedDefaultLoads() throws {
        let embedded = ConfigLoader.loadEmbeddedDefault()
        let file = try ConfigFixtures.loader.load(path: ConfigFixtures.boardPath("sim"))
        #expect(embedded.configuration == file.configuration)
        #expect(embedded.files == [DriftConfiguration.embeddedDefaultName])
    }

    @Test("sim simulates everything")
    func simProfile() throws {
        let config = try ConfigFixtures.loader.load(path: ConfigFixtures.boardPath("sim")).configuration
        #expect(config.gpio.backend == .sim)
        #expect(config.gpio.chip == "drift-sim")
        #expect(config.radio.kind == .sim)
        #expect(config.radio.port == "sim")
        #expect(config.gps.kind == .sim)
        #expect(config.storage.dataDir == "./var")
        #expect(config.http.listen == HostPort(host: "127.0.0.1", port: 8080))
        #expect(config.mesh.networkKey == Array("drift-sim-test-key-do-not-deploy".utf8))
        #expect(config.mesh.usesPublishedKey)
        #expect(config.controlSocketPath == "./var/driftd.sock")
        #expect(abs(config.sim.latitude - 52.4731) < 1e-9)
        #expect(config.i2c.bme280Address == 0x76)
        #expect(config.daemon.shutdownTimeout == .seconds(10))
        #expect(config.buttons.longPress == .milliseconds(2000))
    }

    @Test("real boards: libgpiod chip by label, /data, port 80, placeholder key",
          arguments: [("rpi4b", "pinctrl-bcm2711"), ("rpi5", "pinctrl-rp1"), ("rpi-zero2w", "pinctrl-bcm2835"),
                      ("x86_64-qemu", "gpio-sim.0-node0")])
    func realBoard(name: String, chip: String) throws {
        let config = try ConfigFixtures.loader.load(path: ConfigFixtures.boardPath(name)).configuration
        #expect(config.gpio.backend == .libgpiod)
        #expect(config.gpio.chip == chip)
        #expect(config.storage.dataDir == "/data")
        #expect(config.http.listen == HostPort(host: "0.0.0.0", port: 80))
        #expect(config.mesh.networkKey == Array("CHANGE-ME-drift-default-mesh-key".utf8))
        #expect(config.mesh.usesPublishedKey)
        #expect(config.radio.kind == .e22)
        #expect(!config.e22.m0.isEmpty && !config.e22.m1.isEmpty)
        #expect(config.i2c.bme280)
    }

    @Test("Raspberry Pi pin map", arguments: ["rpi4b", "rpi5", "rpi-zero2w"])
    func piPins(name: String) throws {
        let config = try ConfigFixtures.loader.load(path: ConfigFixtures.boardPath(name)).configuration
        #expect(config.buttons.presence == "GPIO17")
        #expect(config.buttons.keepAlive == "GPIO16")
        #expect([config.leds.status, config.leds.bottle, config.leds.radio, config.leds.gps]
            == ["GPIO18", "GPIO23", "GPIO24", "GPIO25"])
        #expect(config.rain.line == "GPIO26")
        #expect(config.e22.m0 == "GPIO22")
        #expect(config.e22.m1 == "GPIO27")
        #expect(config.e22.aux == "")
        #expect(config.i2c.bus == "/dev/i2c-1")
    }

    @Test("qemu board uses the emulated serial ports and i2c-stub")
    func qemuBoard() throws {
        let config = try ConfigFixtures.loader.load(path: ConfigFixtures.boardPath("x86_64-qemu")).configuration
        #expect(config.gps.port == "/dev/ttyS1")
        #expect(config.radio.port == "/dev/ttyS2")
        #expect(config.i2c.bus == "/dev/i2c-0")
        #expect(config.buttons.presence == "presence")
        #expect(config.buttons.keepAlive == "keep-alive")
    }

    @Test("VM board: strapped E22 on ttyS2, GPS on ttyS1, i2c-stub symlink, simulated GPIO")
    func vmBoard() throws {
        let config = try ConfigFixtures.loader.load(path: ConfigFixtures.boardPath("x86-vm")).configuration
        #expect(config.radio.kind == .e22)
        #expect(config.radio.port == "/dev/ttyS2")
        #expect(config.e22.m0.isEmpty && config.e22.m1.isEmpty && config.e22.aux.isEmpty)
        #expect(config.gps.port == "/dev/ttyS1")
        #expect(config.i2c.bus == "/dev/i2c-stub")
        #expect(config.gpio.backend == .sim)
        #expect(config.storage.dataDir == "/data")
    }

    @Test("every fitted hardware line in a board file carries a pin or line comment",
          arguments: ConfigFixtures.boardNames)
    func linesAreCommented(name: String) throws {
        let lineKeys = ["presence", "keep_alive", "status", "bottle", "radio", "gps", "line", "m0", "m1", "aux"]
        let text = try ConfigFixtures.boardText(name)
        var table = ""
        for raw in text.split(separator: "\n") {
            let row = raw.trimmingCharacters(in: .whitespaces)
            if row.hasPrefix("[") { table = row }
            guard ["[buttons]", "[leds]", "[rain]", "[e22]"].contains(table),
                  let key = row.split(separator: "=").first?.trimmingCharacters(in: .whitespaces),
                  lineKeys.contains(key), row.contains("=")
            else { continue }
            let comment = row.split(separator: "#", maxSplits: 1).dropFirst().first ?? ""
            #expect(comment.contains("pin") || comment.contains("not wired"), "\(name): \(row)")
        }
    }
}
