import DriftCore
import DriftStore
import Foundation
import GRDB
import TestSupport
import Testing

/// Verified erasure: after a bottle expires, none of its bytes remain in the database
/// file, the WAL or the media folder.
@Suite("Erase")
struct EraseTests {
    /// Every file under `root` (recursively) plus the given files, as raw bytes.
    static func files(under root: String) -> [String] {
        let names = (try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? []
        return names.map { "\(root)/\($0)" }.filter {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
    }

    /// The files among `paths` whose raw bytes contain `marker`.
    static func filesContaining(_ marker: String, in paths: [String]) -> [String] {
        let needle = Data(marker.utf8)
        return paths.filter { path in
            guard let bytes = FileManager.default.contents(atPath: path) else { return false }
            return bytes.range(of: needle) != nil
        }
    }

    static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
    }

    @Test("an expired bottle leaves no trace in the database file, the WAL or the media folder")
    func noMarkerSurvives() throws {
        let disk = try DiskStore(prefix: "erase")
        defer { disk.directory.remove() }
        let store = disk.store
        let start = StoreFixtures.start
        let tag = UUID().uuidString.prefix(8)
        let textMarker = "MARKER-TEXT-\(tag)"
        let hintMarker = "MARKER-HINT-\(tag)"
        let chatMarker = "MARKER-CHAT-\(tag)"
        let lateMarker = "MARKER-LATE-\(tag)"
        let mediaMarker = "MARKER-MEDIA-\(tag)"
        let keptMarker = "MARKER-KEPT-\(tag)"

        // The doomed bottle: long text (overflow pages), a hint, an image, chat lines, an attachment.
        let doomed = StoreFixtures.bottleID(1)
        let image = try MediaPath.content(bottle: doomed, fileName: "image.png")
        try disk.media.write(Array("PNG…\(mediaMarker)…".utf8), to: image)
        // 4-byte characters: about 6 KB, more than a 4 KiB page holds, so the text spills into overflow pages.
        let longText = String(repeating: "🌊", count: 1_500) + textMarker
        #expect(longText.utf8.count > 4_096)
        var draft = StoreFixtures.draft(longText, conditions: [BottleCondition(.delay(UnlockDelay(seconds: 60)), hint: hintMarker)],
                                        image: ImageRef(path: image, format: .png, byteCount: 40, width: 2, height: 2))
        draft.hint = hintMarker
        _ = try store.create(draft, id: doomed, origin: StoreFixtures.origin, creator: StoreFixtures.creator, now: start)
        try store.apply(.conditionsMet, to: doomed, at: start.addingTimeInterval(60))
        let opener = StoreFixtures.participant(in: doomed)
        _ = try store.recordFirstOpen(doomed, by: opener, hostPosition: nil, at: start.addingTimeInterval(61))
        var generator = SeededGenerator(seed: 8)
        func post(_ text: String, at offset: Double, attachment: (MessageID) throws -> ChatAttachment? = { _ in nil }) throws {
            let id = MessageID.make(at: start.addingTimeInterval(offset), using: &generator)
            try store.append(try ChatMessage.make(id: id, bottle: doomed, participant: opener, sentAt: start.addingTimeInterval(offset),
                                                  text: text, language: "en", attachment: try attachment(id)))
        }
        for index in 0..<40 { try post("\(chatMarker) line \(index)", at: 70 + Double(index)) }
        try post("voice", at: 200) { id in
            let path = try MediaPath.chat(bottle: doomed, message: id, fileName: "voice.ogg")
            try disk.media.write(Array("OggS \(mediaMarker)".utf8), to: path)
            return .audio(AudioRef(path: path, format: .ogg, byteCount: 20, durationSeconds: 2))
        }
        try store.watch(doomed, by: StoreFixtures.visitor, at: start)
        try store.enqueue(DriftEvent(bottle: doomed, at: start, kind: .linesWhileAway(count: 40)), for: .creator)

        // A bottle that stays, so the scan provably reads the live data.
        let kept = StoreFixtures.bottleID(2)
        _ = try store.create(StoreFixtures.draft(keptMarker), id: kept, origin: StoreFixtures.origin,
                             creator: StoreFixtures.creator, now: start)

        // Put the doomed content into the main database file, then write more into the WAL.
        try disk.database.checkpointAndTruncateWAL()
        for index in 0..<10 { try post("\(lateMarker) \(index)", at: 300 + Double(index)) }

        let dbFile = disk.path
        let walFile = disk.path + "-wal"
        let shmFile = disk.path + "-shm"
        let mediaRoot = disk.directory.appending("media")
        // The markers are really there before the erase (so this test can fail).
        #expect(Self.filesContaining(textMarker, in: [dbFile]) == [dbFile])
        #expect(Self.filesContaining(chatMarker, in: [dbFile]) == [dbFile])
        #expect(Self.filesContaining(hintMarker, in: [dbFile]) == [dbFile])
        #expect(Self.filesContaining(lateMarker, in: [walFile]) == [walFile])
        #expect(Self.filesContaining(mediaMarker, in: Self.files(under: mediaRoot)).count == 2)

        // The bottle ends (hard expiry) and is erased.
        try store.apply(.hardExpiry, to: doomed, at: start.addingTimeInterval(400))
        let report = try disk.eraser.erase(doomed)
        #expect(report.rowsDeleted == 1)
        #expect(report.filesRemoved == 2)
        #expect(report.walBytesAfter == 0)

        let scanned = [dbFile, walFile, shmFile] + Self.files(under: mediaRoot)
        for marker in [textMarker, hintMarker, chatMarker, lateMarker, mediaMarker] {
            #expect(Self.filesContaining(marker, in: scanned).isEmpty, "\(marker) survived the erase")
        }
        #expect(!FileManager.default.fileExists(atPath: disk.media.folderPath(of: doomed)))
        // The other bottle is intact and its bytes are where the scan looked.
        #expect(Self.filesContaining(keptMarker, in: scanned) == [dbFile])
        #expect(try store.bottle(kept)?.content.text == keptMarker)
        #expect(try store.bottle(doomed) == nil)
        #expect(try disk.database.integrityCheck() == "ok")
    }

    @Test("the erase really truncates the WAL to zero bytes")
    func walTruncated() throws {
        let disk = try DiskStore(prefix: "erase-wal")
        defer { disk.directory.remove() }
        let bottle = StoreFixtures.bottleID(1)
        _ = try disk.store.createOpened(bottle)
        var generator = SeededGenerator(seed: 2)
        for index in 0..<200 {
            let id = MessageID.make(at: StoreFixtures.start, using: &generator)
            try disk.store.append(try ChatMessage.make(id: id, bottle: bottle, participant: StoreFixtures.participant(in: bottle),
                                                       sentAt: StoreFixtures.start.addingTimeInterval(Double(index)),
                                                       text: String(repeating: "wal ", count: 100), language: "en"))
        }
        let walFile = disk.path + "-wal"
        let before = try #require(Self.size(walFile))
        #expect(before > 100_000)
        try disk.store.apply(.countdownStarted, to: bottle, at: StoreFixtures.start.addingTimeInterval(500))
        try disk.store.apply(.countdownEnded, to: bottle, at: StoreFixtures.start.addingTimeInterval(530))
        let report = try disk.eraser.erase(bottle)
        #expect(report.walBytesAfter == 0)
        #expect(Self.size(walFile) == 0)
        // Reopening finds a sound database without the bottle.
        let reopened = try DriftDatabase.open(path: disk.path)
        #expect(try reopened.integrityCheck() == "ok")
        #expect(try BottleStore(database: reopened).contains(bottle) == false)
    }

    @Test("sweep finishes interrupted erasures: expired rows and media folders without a bottle")
    func sweep() throws {
        let disk = try DiskStore(prefix: "erase-sweep")
        defer { disk.directory.remove() }
        let expired = StoreFixtures.bottleID(1)
        let orphan = StoreFixtures.bottleID(2)
        let live = StoreFixtures.bottleID(3)
        for id in [expired, live] {
            _ = try disk.store.create(StoreFixtures.draft(), id: id, origin: StoreFixtures.origin, creator: StoreFixtures.creator,
                                      now: StoreFixtures.start)
            try disk.media.write([1], to: try MediaPath.content(bottle: id, fileName: "x.png"))
        }
        try disk.media.write([2], to: try MediaPath.content(bottle: orphan, fileName: "y.png"))
        try disk.store.retire(expired, by: StoreFixtures.creator, at: StoreFixtures.start)
        let report = try disk.eraser.sweep()
        #expect(Set(report.bottles) == [expired, orphan])
        #expect(report.rowsDeleted == 1)
        #expect(report.filesRemoved == 2)
        #expect(disk.media.bottleFolders() == [live])
        #expect(try disk.store.allIDs() == [live])
    }
}
