import DriftConfig
import Foundation
import Testing

@Suite("Documentation")
struct DocumentationTests {
    @Test("docs/config.md documents every key")
    func everyKeyDocumented() throws {
        let docs = try String(contentsOfFile: ConfigFixtures.repositoryRoot + "/docs/config.md", encoding: .utf8)
        #expect(DriftConfiguration.knownKeys.count > 60)
        for key in DriftConfiguration.knownKeys {
            #expect(docs.contains("`\(key)`"), "docs/config.md lacks `\(key)`")
        }
    }

    @Test("docs/boards.md covers every board profile")
    func everyBoardDocumented() throws {
        let docs = try String(contentsOfFile: ConfigFixtures.repositoryRoot + "/docs/boards.md", encoding: .utf8)
        for name in ConfigFixtures.boardNames {
            #expect(docs.contains("`\(name)`"), "docs/boards.md lacks `\(name)`")
        }
    }
}
