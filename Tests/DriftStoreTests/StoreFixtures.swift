import DriftCore
import DriftStore
import Foundation
import TestSupport


enum StoreFixtures {
    static func date(_ iso: String) -> Date {
        guard let date = try? Date(iso, strategy: .iso8601) else { preconditionFailure("bad test date \(iso)") }
        return date
    }

    static let start = date("2024-06-01T10:00:00Z")
    static let boxID = try! BoxID("box-berlin-1")
    static let berlin = try! GeoPoint(latitude: 52.52, longitude: 13.405)
    static let origin = BottleOrigin(boxID: boxID, position: berlin, countryCode: try! CountryCode("DE"))
    static let secret: BoxSecret = {
        var generator = SeededGenerator(seed: 3)
        return BoxSecret.generate(using: &generator)
    }()
    static func token(_ seed: UInt64) -> DeviceToken {
        var generator = SeededGenerator(seed: seed)
        return DeviceToken.generate(using: &generator)
    }
    static let creator = token(1).hash
    static let visitor = token(2).hash

    static func bottleID(_ seed: UInt64, at time: Date = start) -> BottleID {
        var generator = SeededGenerator(seed: seed)
        return BottleID.make(at: time, using: &generator)
    }

    static func participant(_ visitor: TokenHash = visitor, in bottle: BottleID) -> ParticipantID {
        ParticipantID(visitor: visitor, bottle: bottle, secret: secret)
    }

    /// One condition of every storable kind (password hashed with a low cost).
    static func everyCondition() throws -> [BottleCondition] {
        var generator = SeededGenerator(seed: 11)
        let password = try PasswordHasher(iterations: 1_000).hash("river", using: &generator)
        return [
            BottleCondition(.password(password), hint: "the river's name"),
            BottleCondition(.timeOfDay(TimeOfDayWindow(start: (22, 0), end: (4, 30))), hint: "late"),
            BottleCondition(.daysOfWeek([.friday, .saturday])),
            BottleCondition(.dateRange(DateRange(from: try LocalDate(iso: "2024-06-01"), through: try LocalDate(iso: "2024-06-30")))),
            BottleCondition(.solar([.night, .civilDusk])),
            BottleCondition(.weather(.temperature(ValueRange(minimum: -5.5, maximum: 12.25)))),
            BottleCondition(.weather(.humidity(ValueRange(minimum: 60)))),
            BottleCondition(.weather(.pressure(ValueRange(maximum: 1005)))),
            BottleCondition(.weather(.pressureTrend(PressureTrendCondition(trend: .falling, hours: 3)))),
            BottleCondition(.weather(.rain(RainCondition(withinMinutes: 30)))),
            BottleCondition(.boxPosition(BoxPositionCondition(center: berlin, radiusMeters: 250))),
            BottleCondition(.presence(PresenceCondition(withinSeconds: 90))),
            BottleCondition(.distanceFromOrigin(DistanceFromOriginCondition(maximumKilometres: 12.5))),
            BottleCondition(.delay(UnlockDelay(seconds: 3_600)), hint: "wait an hour"),
        ]
    }

    static func draft(_ text: String = "hello from the river", conditions: [BottleCondition] = [],
                      lifetime: TimeInterval = 7 * 86_400, oneShot: Bool = false,
                      image: ImageRef? = nil, whisper: AudioRef? = nil) -> BottleDraft {
        BottleDraft(content: BottleContent(text: text, image: image, whisper: whisper), hint: "look up",
                    conditions: conditions, lifetime: lifetime, isOneShot: oneShot)
    }

    /// A share-code source that yields `codes` in order, then random ones.
    final class CodeSequence: @unchecked Sendable {
        private var codes: [ShareCode]
        private(set) var handedOut = 0
        init(_ codes: [ShareCode]) { self.codes = codes }
        func next() -> ShareCode {
            handedOut += 1
            return codes.isEmpty ? ShareCode.random() : codes.removeFirst()
        }
    }

    static func code(_ seed: UInt64) -> ShareCode {
        var generator = SeededGenerator(seed: seed)
        return ShareCode.random(using: &generator)
    }
}

/// An on-disk database in a fresh temporary directory.
struct DiskStore {
    let directory: TemporaryDirectory
    let database: DriftDatabase
    var store: BottleStore { BottleStore(database: database) }
    var media: MediaStore { MediaStore(dataDirectory: directory.path) }
    var eraser: BottleEraser { BottleEraser(database: database, media: media) }
    var path: String { directory.appending("drift.sqlite") }

    init(prefix: String = "store") throws {
        directory = try TemporaryDirectory(prefix: prefix)
        database = try DriftDatabase.open(path: directory.appending("drift.sqlite"))
    }
}

extension BottleStore {
    /// Creates a bottle and opens it (locked → openable → active) for chat tests.
    func createOpened(_ id: BottleID, text: String = "hello", at time: Date = StoreFixtures.start,
                      opener: ParticipantID? = nil, oneShot: Bool = false, lifetime: TimeInterval = 7 * 86_400) throws -> Bottle {
        _ = try create(StoreFixtures.draft(text, lifetime: lifetime, oneShot: oneShot), id: id, origin: StoreFixtures.origin,
                       creator: StoreFixtures.creator, now: time)
        try apply(.conditionsMet, to: id, at: time)
        return try recordFirstOpen(id, by: opener ?? StoreFixtures.participant(in: id), hostPosition: StoreFixtures.berlin,
                                   at: time.addingTimeInterval(1)).bottle
    }
}
