import DriftCore
import DriftStore
import DriftSystem
import Foundation
import TestSupport
import Testing

@Suite("Media files")
struct MediaStoreTests {
    @Test("writes land at the relative path, replace atomically and leave no temporary files")
    func atomicWrites() throws {
        let directory = try TemporaryDirectory(prefix: "media")
        defer { directory.remove() }
        let media = MediaStore(dataDirectory: directory.path)
        let bottle = StoreFixtures.bottleID(1)
        let path = try MediaPath.content(bottle: bottle, fileName: "image.webp")
        try media.write(Array("first version".utf8), to: path)
        #expect(media.filePath(path) == "\(directory.path)/media/bottles/\(bottle)/content/image.webp")
        #expect(try media.read(path) == Array("first version".utf8))
        let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try media.write(big, to: path)
        #expect(try media.read(path) == big)
        let message = MessageID.make(at: StoreFixtures.start)
        let chat = try MediaPath.chat(bottle: bottle, message: message, fileName: "voice.ogg")
        try media.write([1, 2, 3], to: chat)
        #expect(media.exists(chat))
        let names = try FileManager.default.subpathsOfDirectory(atPath: media.folderPath(of: bottle)).sorted()
        #expect(names == ["chat", "chat/\(message)", "chat/\(message)/voice.ogg", "content", "content/image.webp"])
        #expect(media.bottleFolders() == [bottle])
    }

    @Test("missing files are a typed error naming the file")
    func missingFile() throws {
        let directory = try TemporaryDirectory(prefix: "media")
        defer { directory.remove() }
        let media = MediaStore(dataDirectory: directory.path)
        let path = try MediaPath.content(bottle: StoreFixtures.bottleID(1), fileName: "nothing.png")
        do throws(SystemError) {
            _ = try media.read(path)
            Issue.record("read of a missing file succeeded")
        } catch {
            #expect(error.errno == ENOENT)
            #expect(error.subject == media.filePath(path))
        }
    }

    @Test("removing a folder removes every file, does not follow links, and tolerates absence")
    func removeFolder() throws {
        let directory = try TemporaryDirectory(prefix: "media")
        defer { directory.remove() }
        let media = MediaStore(dataDirectory: directory.path)
        let bottle = StoreFixtures.bottleID(1)
        let outside = directory.appending("precious.txt")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: outside))
        try media.write([9, 9, 9], to: try MediaPath.content(bottle: bottle, fileName: "a.png"))
        try media.write([8, 8], to: try MediaPath.chat(bottle: bottle, message: MessageID.make(at: StoreFixtures.start), fileName: "b.ogg"))
        try FileManager.default.createSymbolicLink(atPath: media.folderPath(of: bottle) + "/content/link", withDestinationPath: outside)
        #expect(try media.removeFolder(of: bottle) == 3)
        #expect(!FileManager.default.fileExists(atPath: media.folderPath(of: bottle)))
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "keep me")
        #expect(try media.removeFolder(of: bottle) == 0)
        #expect(media.bottleFolders().isEmpty)
    }
}
