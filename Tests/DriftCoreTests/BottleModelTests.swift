import DriftCore
import Foundation
import Testing

@Suite struct BottleModelTests {
    let id = Fixtures.bottleID()
    let now = Fixtures.date("2024-06-01T10:00:00Z")

    func create(_ draft: BottleDraft) throws -> Bottle {
        try Bottle.create(draft, id: id, shareCode: ShareCode.random(), origin: BottleOrigin(boxID: Fixtures.boxID, position: Fixtures.berlin, countryCode: nil),
                          creator: Fixtures.creatorToken.hash, now: now)
    }

    func whisper(_ seconds: Double) throws -> AudioRef {
        AudioRef(path: try MediaPath.content(bottle: id, fileName: "whisper.ogg"), format: .ogg, byteCount: 30_000, durationSeconds: seconds)
    }

    @Test func newBottlesStartLockedWithDefaults() throws {
        let bottle = try create(BottleDraft(content: BottleContent(text: "  ahoy  ")))
        #expect(bottle.state == .locked)
        #expect(bottle.expiresAt == now.addingTimeInterval(7 * 86_400))
        #expect(bottle.firstOpenedAt == nil)
        #expect(bottle.isCreator(Fixtures.creatorToken.hash))
        #expect(!bottle.isCreator(Fixtures.visitorToken.hash))
    }

    @Test func textBounds() throws {
        #expect(throws: Never.self) { try create(BottleDraft(content: BottleContent(text: String(repeating: "a", count: 2_000)))) }
        #expect(throws: DomainValidationError.self) { try create(BottleDraft(content: BottleContent(text: String(repeating: "a", count: 2_001)))) }
        #expect(throws: DomainValidationError.self) { try create(BottleDraft(content: BottleContent(text: "   \n "))) }
        #expect(throws: DomainValidationError.self) { try create(BottleDraft(content: BottleContent(text: "bell\u{7}"))) }
        // Zalgo-style text: few characters, many bytes.
        let heavy = String(repeating: "a" + String(repeating: "\u{301}", count: 50), count: 100)
        #expect(throws: DomainValidationError.self) { try create(BottleDraft(content: BottleContent(text: heavy))) }
        #expect(throws: Never.self) { try create(BottleDraft(content: BottleContent(text: "line one\nline two\ttab"))) }
    }

    @Test(arguments: [(1.99, false), (2.0, true), (3.5, true), (5.0, true), (5.01, false), (Double.nan, false)])
    func whisperDuration(seconds: Double, valid: Bool) throws {
        let draft = BottleDraft(content: BottleContent(text: "", whisper: try whisper(seconds)))
        if valid {
            #expect(throws: Never.self) { try create(draft) }
        } else {
            #expect(throws: DomainValidationError.self) { try create(draft) }
        }
    }

    @Test func mediaMustBeInTheBottlesContentFolder() throws {
        let elsewhere = ImageRef(path: try MediaPath.content(bottle: Fixtures.bottleID(99), fileName: "a.webp"), format: .webp, byteCount: 10, width: 10, height: 10)
        #expect(throws: DomainValidationError.self) { try create(BottleDraft(content: BottleContent(text: "x", image: elsewhere))) }
        let image = ImageRef(path: try MediaPath.content(bottle: id, fileName: "a.webp"), format: .webp, byteCount: 10, width: 10, height: 10)
        #expect(throws: Never.self) { try create(BottleDraft(content: BottleContent(text: "", image: image))) }
        let huge = ImageRef(path: image.path, format: .png, byteCount: 4 * 1024 * 1024, width: 10, height: 10)
        #expect(throws: DomainValidationError.self) { try create(BottleDraft(content: BottleContent(text: "", image: huge))) }
    }

    @Test func mediaPathsCannotEscape() throws {
        for bad in ["/etc/passwd", "media/../etc", "media/bottles//x", "media", "images/a.png", "media/bottles/a b", "media/./x", "media/bottles/é"] {
            #expect(throws: DomainValidationError.self, "\(bad)") { try MediaPath(bad) }
        }
        let message = MessageID.make(at: now)
        let path = try MediaPath.chat(bottle: id, message: message, fileName: "photo.jpg")
        #expect(path.rawValue == "media/bottles/\(id)/chat/\(message)/photo.jpg")
        #expect(path.belongs(to: id))
        #expect(MediaPath.bottleFolder(id).rawValue == "media/bottles/\(id)")
        #expect(throws: DomainValidationError.self) { try MediaPath.content(bottle: id, fileName: "../../x") }
    }

    @Test func conditionListRules() throws {
        let twice = [BottleCondition(.delay(UnlockDelay(seconds: 60))), BottleCondition(.delay(UnlockDelay(seconds: 90)))]
        #expect(throws: DomainValidationError.self) { try create(BottleDraft(content: BottleContent(text: "x"), conditions: twice)) }
        let longHint = [BottleCondition(.delay(UnlockDelay(seconds: 60)), hint: String(repeating: "h", count: 201))]
        #expect(throws: DomainValidationError.self) { try create(BottleDraft(content: BottleContent(text: "x"), conditions: longHint)) }
        #expect(throws: DomainValidationError.self) { try create(BottleDraft(content: BottleContent(text: "x"), lifetime: 31 * 86_400)) }
        #expect(throws: DomainValidationError.self) { try create(BottleDraft(content: BottleContent(text: "x"), lifetime: 10)) }
    }

    @Test func editOnlyByCreatorBeforeFirstOpen() throws {
        var bottle = try create(BottleDraft(content: BottleContent(text: "first")))
        let later = now.addingTimeInterval(60)
        #expect(throws: BottleEditError.lifecycle(.notCreator)) {
            try bottle.edit(BottleDraft(content: BottleContent(text: "hijack")), by: Fixtures.visitorToken.hash, now: later)
        }
        try bottle.edit(BottleDraft(content: BottleContent(text: "second"), lifetime: 3_600), by: Fixtures.creatorToken.hash, now: later)
        #expect(bottle.content.text == "second")
        #expect(bottle.expiresAt == now.addingTimeInterval(3_600), "lifetime counts from creation")
        try bottle.apply(.conditionsMet, at: later)
        try bottle.recordFirstOpen(by: Fixtures.participant(in: id), hostPosition: nil, at: later)
        #expect(throws: BottleEditError.lifecycle(.alreadyOpened)) {
            try bottle.edit(BottleDraft(content: BottleContent(text: "third")), by: Fixtures.creatorToken.hash, now: later)
        }
    }

    @Test func firstOpenRecordsDistanceTravelled() throws {
        let paris = try GeoPoint(latitude: 48.8566, longitude: 2.3522)
        var bottle = try Bottle.create(
            BottleDraft(placement: .drift, content: BottleContent(text: "from afar")), id: id, shareCode: ShareCode.random(),
            origin: BottleOrigin(boxID: Fixtures.otherBox, position: paris, countryCode: try CountryCode("FR")),
            creator: Fixtures.creatorToken.hash, now: now)
        // Still stored as locked: both table rows apply.
        try bottle.recordFirstOpen(by: Fixtures.participant(in: id), hostPosition: Fixtures.berlin, at: now)
        #expect(bottle.state == .active)
        #expect(bottle.firstOpenedAt == now)
        #expect(abs((bottle.distanceTravelledMeters ?? 0) - 878_000) < 3_000)
    }

    @Test func everyConditionKindRoundTripsThroughJSON() throws {
        let conditions: [BottleCondition] = [
            BottleCondition(.password(try Fixtures.hasher.hash("x")), hint: "h"),
            BottleCondition(.timeOfDay(TimeOfDayWindow(start: (22, 0), end: (4, 0)))),
            BottleCondition(.daysOfWeek([.monday, .sunday])),
            BottleCondition(.dateRange(DateRange(from: try LocalDate(iso: "2024-06-01"), through: nil))),
            BottleCondition(.solar([.civilDusk, .night])),
            BottleCondition(.weather(.temperature(ValueRange(minimum: 1, maximum: 2)))),
            BottleCondition(.weather(.humidity(ValueRange(minimum: 50)))),
            BottleCondition(.weather(.pressure(ValueRange(maximum: 1000)))),
            BottleCondition(.weather(.pressureTrend(PressureTrendCondition(trend: .falling, hours: 3)))),
            BottleCondition(.weather(.rain(RainCondition(withinMinutes: 30)))),
            BottleCondition(.boxPosition(BoxPositionCondition(center: Fixtures.berlin, radiusMeters: 100))),
            BottleCondition(.presence(PresenceCondition(withinSeconds: 30))),
            BottleCondition(.distanceFromOrigin(DistanceFromOriginCondition(maximumKilometres: 5))),
            BottleCondition(.delay(UnlockDelay(seconds: 60))),
        ]
        #expect(Set(conditions.map(\.condition.kind)).count == conditions.count)
        var bottle = try create(BottleDraft(placement: .manual(target: Fixtures.otherBox), content: BottleContent(text: "all"),
                                            conditions: conditions, isOneShot: true))
        try bottle.apply(.conditionsMet, at: now)
        let json = try JSONEncoder().encode(bottle)
        let decoded = try JSONDecoder().decode(Bottle.self, from: json)
        #expect(decoded == bottle)
        // Every kind except the bottle-level one-shot and expiry is a list entry.
        #expect(Set(conditions.map(\.condition.kind)).union([.oneShot, .expiry]) == Set(ConditionKind.allCases))
    }
}
