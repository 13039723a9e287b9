import DriftCore
@testable import DriftDaemon
import Foundation
import Testing

@Suite("Recent lines kept for the fan-out")
struct RecentLinesTests {
    static func line(_ index: Int, in bottle: BottleID) throws -> ChatMessage {
        try ChatMessage.make(id: MessageID(uuid: UUID()), bottle: bottle,
                             participant: ParticipantID(visitor: BottlesFixtures.alice, bottle: bottle, secret: BottlesFixtures.secret),
                             sentAt: Date(timeIntervalSince1970: 1_780_000_000 + Double(index)), text: "line \(index)", language: "en")
    }

    @Test("bounded: the oldest line goes first; an erased bottle's lines are forgotten")
    func boundedAndForgotten() throws {
        let recent = RecentLines()
        let a = BottleID(uuid: UUID())
        let b = BottleID(uuid: UUID())
        let first = try Self.line(0, in: a)
        recent.remember(first)
        var lastOfA = first
        for index in 1..<RecentLines.capacity {
            lastOfA = try Self.line(index, in: a)
            recent.remember(lastOfA)
        }
        #expect(recent.line(first.id) == first)
        let other = try Self.line(999, in: b)
        recent.remember(other)
        #expect(recent.count == RecentLines.capacity)
        #expect(recent.line(first.id) == nil, "the oldest made room")
        #expect(recent.line(lastOfA.id) == lastOfA)
        recent.forget(bottles: [a])
        #expect(recent.count == 1)
        #expect(recent.line(lastOfA.id) == nil)
        #expect(recent.line(other.id) == other)
    }
}
