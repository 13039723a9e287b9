import DriftConfig
import Foundation
import Testing

@Suite("[buttons] mapping keys")
struct ButtonMappingConfigTests {
    func load(_ extra: String) throws -> (String, Result<LoadedConfiguration, ConfigError>) {
        let text = try ConfigFixtures.simText(replacing: [("long_press_ms = 2000\n", "long_press_ms = 2000\n\(extra)\n")])
        let scratch = try ScratchDirectory()
        let path = try scratch.write("driftd.toml", text)
        defer { scratch.remove() }
        do {
            return (text, .success(try ConfigFixtures.loader.load(path: path)))
        } catch {
            return (text, .failure(error))
        }
    }

    @Test("the preset and the overrides are read")
    func valid() throws {
        let (_, result) = try load("mapping = \"single\"\nkeep_alive_long = \"led-test\"\nboth_long = \"none\"")
        let buttons = try result.get().configuration.buttons
        #expect(buttons.mapping == .single)
        #expect(buttons.overrides == ["keep-alive.long": .ledTest, "keep-alive+presence": .none])
        let (_, plain) = try load("")
        #expect(try plain.get().configuration.buttons.mapping == .standard)
        #expect(try plain.get().configuration.buttons.overrides.isEmpty)
    }

    @Test("a bad action is a config error at its file and line, with did-you-mean")
    func badAction() throws {
        let (text, result) = try load("presence_long = \"selftst\"")
        guard case .failure(let error) = result else { Issue.record("expected an error"); return }
        let issue = try #require(error.issues.first)
        #expect(error.issues.count == 1)
        #expect(issue.key == "buttons.presence_long")
        #expect(issue.kind == .invalidValue)
        #expect(issue.file.hasSuffix("driftd.toml"))
        #expect(issue.line == ConfigFixtures.line(of: "presence_long = \"selftst\"", in: text))
        #expect(issue.hint == "did you mean `selftest`?")
    }

    @Test("a bad preset and a misspelt gesture key are errors with hints")
    func badPresetAndKey() throws {
        let (text, result) = try load("mapping = \"standart\"\npresense_long = \"selftest\"")
        guard case .failure(let error) = result else { Issue.record("expected an error"); return }
        let mapping = try #require(error.issues.first { $0.key == "buttons.mapping" })
        #expect(mapping.hint == "did you mean `standard`?")
        #expect(mapping.line == ConfigFixtures.line(of: "mapping = \"standart\"", in: text))
        let key = try #require(error.issues.first { $0.key == "buttons.presense_long" })
        #expect(key.kind == .unknownKey)
        #expect(key.hint == "did you mean `buttons.presence_long`?")
    }
}
