import DriftConfig
import Foundation
import Testing

@Suite("Board profile overlay")
struct OverlayTests {
    private let installerKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

    @Test("a short installer file overlays the board profile; the file's keys win")
    func shortInstallerFile() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let profile = try scratch.copyBoard("rpi4b")
        let path = try scratch.write("driftd.toml", """
            [box]
            board = "rpi4b"
            name = "Tempelhof drop-box"
            country = "AT"
            timezone = "Europe/Vienna"

            [mesh]
            network_key = "\(installerKey)"

            [radio]
            tx_power_dbm = 10
            """)
        let loaded = try ConfigFixtures.loader.load(path: path)
        #expect(loaded.files == [profile, path])
        #expect(loaded.boardProfile == profile)
        let config = loaded.configuration
        #expect(config.box.name == "Tempelhof drop-box")
        #expect(config.box.country == "AT")
        #expect(config.radio.txPowerDBm == 10)
        #expect(config.mesh.networkKey == Array(0..<32))
        #expect(!config.mesh.usesPublishedKey)
        // Everything else comes from the profile.
        #expect(config.radio.port == "/dev/serial0")
        #expect(config.radio.spreadingFactor == 11)
        #expect(config.gpio.chip == "pinctrl-bcm2711")
        #expect(config.buttons.presence == "GPIO17")
    }

    @Test("issues point into the file the key came from")
    func issueLocations() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let profileText = try ConfigFixtures.boardText("rpi4b")
            .replacingOccurrences(of: "spreading_factor = 11", with: "spreading_factor = 13")
        let profile = try scratch.write("board/rpi4b.toml", profileText)
        let installerText = """
            [box]
            board = "rpi4b"
            name = "Overlay"

            [radio]
            baud = "fast"
            colour = "blue"
            """
        let path = try scratch.write("driftd.toml", installerText)
        let error = try #require(throws: ConfigError.self) { try ConfigFixtures.loader.load(path: path) }
        try #require(error.issues.count == 3, "\(error.issues)")

        // Profile issues first (merge order), then the installer's, each by line.
        let spreading = error.issues[0]
        #expect(spreading.key == "radio.spreading_factor")
        #expect(spreading.file == profile)
        #expect(spreading.line == ConfigFixtures.line(of: "spreading_factor = 13", in: profileText))

        let baud = error.issues[1]
        #expect(baud.key == "radio.baud")
        #expect(baud.kind == .wrongType)
        #expect(baud.file == path)
        #expect(baud.line == 6)

        let colour = error.issues[2]
        #expect(colour.key == "radio.colour")
        #expect(colour.file == path)
        #expect(colour.line == 7)
    }

    @Test("a syntax error in the profile is reported against the profile")
    func profileSyntaxError() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let profile = try scratch.write("board/rpi5.toml", "[box\nname = 1\n")
        let path = try scratch.write("driftd.toml", "[box]\nboard = \"rpi5\"\n")
        let error = try #require(throws: ConfigError.self) { try ConfigFixtures.loader.load(path: path) }
        #expect(error.issues.count == 1)
        #expect(error.issues.first?.kind == .syntax)
        #expect(error.issues.first?.file == profile)
        #expect(error.issues.first?.line == 1)
    }

    @Test("box.board_dir is searched first, relative to the config file")
    func boardDirectory() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let profile = try scratch.copyBoard("rpi5", into: "profiles")
        let path = try scratch.write("etc/driftd.toml", "[box]\nboard = \"rpi5\"\nboard_dir = \"../profiles\"\n")
        let loaded = try ConfigFixtures.loader.load(path: path)
        #expect(loaded.configuration.gpio.chip == "pinctrl-rp1")
        #expect(BoardLocatorPaths.same(loaded.boardProfile, profile))
    }

    @Test("box.board may be a path ending in .toml")
    func boardPath() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.copyBoard("rpi-zero2w", into: "elsewhere")
        let path = try scratch.write("driftd.toml", "[box]\nboard = \"elsewhere/rpi-zero2w.toml\"\n")
        let loaded = try ConfigFixtures.loader.load(path: path)
        #expect(loaded.configuration.gpio.chip == "pinctrl-bcm2835")
        #expect(loaded.configuration.gps.port == "auto")

        let missing = try scratch.write("missing.toml", "[box]\nboard = \"nowhere/board.toml\"\n")
        let error = try #require(throws: ConfigError.self) { try ConfigFixtures.loader.load(path: missing) }
        let issue = try #require(error.issues.first { $0.key == "box.board" })
        #expect(issue.kind == .invalidValue)
        #expect(issue.line == 2)
        #expect(issue.message.contains("does not exist"))
    }

    @Test("the system board directories come last")
    func systemDirectory() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.copyBoard("x86_64-qemu", into: "usr/share/driftd/board")
        let path = try scratch.write("config/driftd.toml", "[box]\nboard = \"x86_64-qemu\"\n")
        let loader = ConfigLoader(systemBoardDirectories: [scratch.path + "/usr/share/driftd/board"])
        let loaded = try loader.load(path: path)
        #expect(loaded.configuration.gpio.chip == "gpio-sim.0-node0")
        #expect(loaded.files.count == 2)
    }

    @Test("a near-miss board name says which profiles exist")
    func unknownBoard() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.copyBoard("rpi4b")
        let path = try scratch.write("driftd.toml", "[box]\nboard = \"rpi4\"\nname = \"Typo\"\n")
        let error = try #require(throws: ConfigError.self) { try ConfigFixtures.loader.load(path: path) }
        let issue = try #require(error.issues.first { $0.key == "box.board" })
        #expect(issue.kind == .invalidValue)
        #expect(issue.line == 2)
        #expect(issue.hint == "did you mean `rpi4b`?")
        #expect(error.issues.contains { $0.kind == .missingKey })
    }

    @Test("a complete file for a board without a profile is fine")
    func customBoard() throws {
        let text = try ConfigFixtures.simText(replacing: [("board = \"sim\"", "board = \"my-custom-board\"")])
        let loaded = try ConfigFixtures.loader.load(text: text, fileName: "custom.toml", baseDirectory: "/nonexistent")
        #expect(loaded.configuration.box.board == "my-custom-board")
        #expect(loaded.boardProfile == nil)
    }

    @Test("the effective text loads back to the same configuration", arguments: ConfigFixtures.boardNames)
    func effectiveTextRoundTrip(name: String) throws {
        let loaded = try ConfigFixtures.loader.load(path: ConfigFixtures.boardPath(name))
        let again = try ConfigFixtures.loader.load(
            text: loaded.effectiveText, fileName: "effective.toml", baseDirectory: "/nonexistent")
        #expect(again.configuration == loaded.configuration)
        #expect(again.effectiveText.hasPrefix("# Effective driftd configuration"))
    }

    @Test("the effective text of an overlay carries the merged values")
    func effectiveTextOfOverlay() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try scratch.copyBoard("rpi4b")
        let path = try scratch.write("driftd.toml", "[box]\nboard = \"rpi4b\"\nname = \"Merged \\\"box\\\"\"\n[radio]\ntx_power_dbm = -3\n")
        let loaded = try ConfigFixtures.loader.load(path: path)
        #expect(loaded.effectiveText.contains("name = \"Merged \\\"box\\\"\""))
        #expect(loaded.effectiveText.contains("tx_power_dbm = -3"))
        #expect(loaded.effectiveText.contains("chip = \"pinctrl-bcm2711\""))
        let again = try ConfigFixtures.loader.load(text: loaded.effectiveText, fileName: "e.toml", baseDirectory: "/nonexistent")
        #expect(again.configuration == loaded.configuration)
    }
}

/// Compares paths after resolving `..` and symlinks.
enum BoardLocatorPaths {
    static func same(_ a: String?, _ b: String) -> Bool {
        guard let a else { return false }
        func canonical(_ path: String) -> String {
            URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        }
        return canonical(a) == canonical(b)
    }
}
