import DriftCore
import Foundation
import TestSupport
import Testing

@Suite struct ChatTests {
    let bottle = Fixtures.bottleID()
    var alice: ParticipantID { Fixtures.participant(in: bottle) }
    let now = Fixtures.date("2024-06-01T12:00:00.123Z")

    func line(_ text: String, language: String = "en", attachment: ChatAttachment? = nil, id: MessageID? = nil, at: Date? = nil) throws -> ChatMessage {
        try ChatMessage.make(id: id ?? MessageID.make(at: at ?? now), bottle: bottle, participant: alice,
                             sentAt: at ?? now, text: text, language: language, attachment: attachment)
    }

    @Test func validLinesAreTrimmedAndStamped() throws {
        let message = try line("  hello there \n")
        #expect(message.text == "hello there")
        #expect(message.language.rawValue == "en")
        #expect(message.sentAt.timeIntervalSince1970 == 1_717_243_200.123)
        #expect(try line(String(repeating: "ü", count: 1_000)).text.count == 1_000)
        #expect(try line("multi\nline").text == "multi\nline")
    }

    @Test func emptyOverlongAndControlLinesAreRejected() {
        for bad in ["", "   ", "\n\t ", String(repeating: "x", count: 1_001), "nul\u{0}byte", "esc\u{1B}[31m"] {
            #expect(throws: DomainValidationError.self, "\(bad.prefix(10))") { try line(bad) }
        }
    }

    @Test func attachmentsMustLiveInTheMessageFolder() throws {
        let id = MessageID.make(at: now)
        let photo = ImageRef(path: try MediaPath.chat(bottle: bottle, message: id, fileName: "p.jpg"), format: .jpeg, byteCount: 1_000, width: 640, height: 480)
        let withPhoto = try line("", attachment: .image(photo), id: id)
        #expect(withPhoto.text.isEmpty)
        #expect(withPhoto.attachment?.path == photo.path)
        let voice = AudioRef(path: try MediaPath.chat(bottle: bottle, message: id, fileName: "v.ogg"), format: .ogg, byteCount: 9_000, durationSeconds: 12)
        #expect(throws: Never.self) { try line("listen", attachment: .audio(voice), id: id) }
        let tooLong = AudioRef(path: voice.path, format: .ogg, byteCount: 9_000, durationSeconds: 61)
        #expect(throws: DomainValidationError.self) { try line("listen", attachment: .audio(tooLong), id: id) }
        // Pointing at another message's folder.
        #expect(throws: DomainValidationError.self) { try line("x", attachment: .image(photo), id: MessageID.make(at: now)) }
    }

    @Test(arguments: [
        ("en", "en"), ("de-CH", "de-CH"), ("zh-hant-tw", "zh-Hant-TW"), ("SR-LATN-RS", "sr-Latn-RS"),
        ("es-419", "es-419"), ("sl-rozaj-biske", "sl-rozaj-biske"), ("de-CH-1901", "de-CH-1901"),
        ("en-US-u-ca-gregory", "en-US-u-ca-gregory"), ("x-whatever", "x-whatever"), ("und", "und"),
        ("zh-yue-HK", "zh-yue-HK"), ("en-a-bbb-x-a-ccc", "en-a-bbb-x-a-ccc"),
    ])
    func wellFormedLanguageTags(input: String, canonical: String) throws {
        #expect(try LanguageTag(input).rawValue == canonical)
    }

    @Test(arguments: ["", "e", "en-US-US", "en_US", "en--US", "en-", "-en", "1en", "de-419-419",
                      "sl-rozaj-rozaj", "en-a-x", "en-a", "x", "en-US-u", "i-klingon", "en-ü", "toolongtag"])
    func malformedLanguageTags(input: String) {
        #expect(throws: DomainValidationError.self) { try LanguageTag(input) }
    }

    @Test func orderingIsTimestampThenID() throws {
        var generator = SeededGenerator(seed: 5)
        let sameTime = (0..<20).map { _ in MessageID.make(at: now, using: &generator) }
        let messages = try sameTime.map { try line("tie", id: $0) } + [try line("earlier", at: now.addingTimeInterval(-1))]
        let ordered = ChatTimeline.ordered(messages.shuffled(using: &generator))
        #expect(ordered.first?.text == "earlier")
        #expect(Array(ordered.dropFirst().map(\.id)) == sameTime.sorted())
    }

    @Test func pagingNewestFiftyThenOlderByCursor() throws {
        var generator = SeededGenerator(seed: 6)
        let messages = try (0..<120).map { index in
            try line("line \(index)", id: MessageID.make(at: now, using: &generator), at: now.addingTimeInterval(Double(index / 3)))
        }
        let shuffled = messages.shuffled(using: &generator)
        let first = ChatTimeline.page(shuffled)
        #expect(first.messages.count == 50)
        #expect(first.messages.last?.orderKey == ChatTimeline.ordered(messages).last?.orderKey)
        let cursor1 = try #require(first.olderCursor)
        // Clients only ever see the opaque form.
        let second = ChatTimeline.page(shuffled, before: try ChatCursor(encoded: cursor1.encoded))
        #expect(second.messages.count == 50)
        let third = ChatTimeline.page(shuffled, before: second.olderCursor)
        #expect(third.messages.count == 20)
        #expect(third.olderCursor == nil)
        let all = third.messages + second.messages + first.messages
        #expect(all.map(\.id) == ChatTimeline.ordered(messages).map(\.id), "pages join without gaps or duplicates")
        #expect(ChatTimeline.page(shuffled, limit: 500).messages.count == 50, "page size is capped")
    }

    @Test func cursorsRejectGarbage() {
        for bad in ["", "abc", String(repeating: "A", count: 200), "!!!!"] {
            #expect(throws: DomainValidationError.self) { try ChatCursor(encoded: bad) }
        }
    }

    @Test func serverTimestampsNeverGoBackwards() {
        var stamper = ServerTimestamper()
        let first = stamper.stamp(now)
        let stepBack = stamper.stamp(now.addingTimeInterval(-5))   // clock stepped back
        let same = stamper.stamp(now.addingTimeInterval(-5))
        let later = stamper.stamp(now.addingTimeInterval(10))
        #expect(first < stepBack && stepBack < same && same < later)
        #expect(abs(stepBack.timeIntervalSince(first) - 0.001) < 0.000_1)
    }

    @Test func typingExpiresAfterFiveSeconds() {
        var typing = TypingState()
        let bob = Fixtures.participant(Fixtures.creatorToken, in: bottle)
        typing.typing(alice, at: now)
        typing.typing(bob, at: now.addingTimeInterval(2))
        #expect(Set(typing.typing(at: now.addingTimeInterval(4.9))) == [alice, bob])
        #expect(typing.typing(at: now.addingTimeInterval(5)) == [bob])
        #expect(typing.nextExpiry == now.addingTimeInterval(5))
        #expect(typing.expire(at: now.addingTimeInterval(5)) == [alice])
        typing.typing(bob, at: now.addingTimeInterval(6))  // renewed
        #expect(typing.typing(at: now.addingTimeInterval(10)) == [bob])
        typing.stopped(bob)
        #expect(typing.typing(at: now.addingTimeInterval(10)).isEmpty)
        #expect(typing.nextExpiry == nil)
    }

    @Test func presenceEndsWithTheLastConnection() {
        var presence = PresenceSet()
        let bob = Fixtures.participant(Fixtures.creatorToken, in: bottle)
        let aliceArrived = presence.connect(ConnectionID(1), as: alice)
        let secondTabIsNew = presence.connect(ConnectionID(2), as: alice)
        let bobArrived = presence.connect(ConnectionID(3), as: bob)
        #expect(aliceArrived)
        #expect(!secondTabIsNew, "second tab")
        #expect(bobArrived)
        #expect(presence.participants == [alice, bob])
        #expect(presence.disconnect(ConnectionID(1)) == nil, "alice still has a tab open")
        #expect(presence.disconnect(ConnectionID(2)) == alice)
        #expect(!presence.isPresent(alice))
        #expect(presence.disconnect(ConnectionID(99)) == nil)
        #expect(presence.disconnect(ConnectionID(3)) == bob)
        #expect(presence.isEmpty)
    }
}
