import DriftConfig
import Testing

/// `[meshtastic]`: channel, hop limit and text channel, each range-checked.
@Suite("Meshtastic config")
struct MeshtasticConfigTests {
    private func issues(_ replacements: [(String, String)]) throws -> [ConfigIssue] {
        try ConfigFixtures.simIssues(replacing: replacements)
    }

    @Test("the defaults (the board profiles show them commented out): channel 0, hop limit 3, text on channel 0")
    func defaults() throws {
        let text = try ConfigFixtures.simText()
        let config = try ConfigFixtures.loader.load(text: text, fileName: "driftd.toml", baseDirectory: "/nonexistent-drift-dir").configuration
        #expect(config.meshtastic.channel == 0)
        #expect(config.meshtastic.hopLimit == 3)
        #expect(config.meshtastic.textChannel == 0)
        #expect(config.meshtastic.publishedTextChannel == 0)
    }

    @Test("values set in the file are read; text_channel = -1 turns publishing off")
    func textOff() throws {
        let text = try ConfigFixtures.simText(replacing: [
            ("# text_channel = 0 ", "text_channel = -1"), ("# channel = 0 ", "channel = 5 "), ("# hop_limit = 3 ", "hop_limit = 0 "),
        ])
        let config = try ConfigFixtures.loader.load(text: text, fileName: "driftd.toml", baseDirectory: "/nonexistent-drift-dir").configuration
        #expect(config.meshtastic.publishedTextChannel == nil)
        #expect(config.meshtastic.textChannel == -1)
        #expect(config.meshtastic.channel == 5)
        #expect(config.meshtastic.hopLimit == 0)
    }

    @Test("out-of-range values are invalid", arguments: [
        ("# channel = 0 ", "channel = 8 ", "meshtastic.channel"),
        ("# channel = 0 ", "channel = -1 ", "meshtastic.channel"),
        ("# hop_limit = 3 ", "hop_limit = 8 ", "meshtastic.hop_limit"),
        ("# text_channel = 0 ", "text_channel = -2 ", "meshtastic.text_channel"),
        ("# text_channel = 0 ", "text_channel = 8 ", "meshtastic.text_channel"),
        ("# text_channel = 0 ", "text_channel = \"off\" ", "meshtastic.text_channel"),
    ])
    func outOfRange(old: String, new: String, key: String) throws {
        let found = try issues([(old, new)])
        #expect(found.contains { $0.key == key }, "\(found)")
        #expect(found.count == 1, "\(found)")
    }
}
