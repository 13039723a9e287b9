import DriftCore
import Foundation
import TestSupport

/// A small manual clock for tests: explicit instants, advanced by hand.
struct TestClock {
    private(set) var now: Date

    init(_ iso: String) {
        now = Fixtures.date(iso)
    }

    mutating func advance(_ seconds: TimeInterval) {
        now = now.addingTimeInterval(seconds)
    }
}


enum Fixtures {
    static func date(_ iso: String) -> Date {
        guard let date = try? Date(iso, strategy: .iso8601) else {
            preconditionFailure("bad test date \(iso)")
        }
        return date
    }

    static let berlinZone = TimeZone(identifier: "Europe/Berlin")!
    static let berlin = try! GeoPoint(latitude: 52.52, longitude: 13.405)
    static let boxID = try! BoxID("box-berlin-1")
    static let otherBox = try! BoxID("box-paris-2")
    static let creatorToken: DeviceToken = {
        var generator = SeededGenerator(seed: 1)
        return DeviceToken.generate(using: &generator)
    }()
    static let visitorToken: DeviceToken = {
        var generator = SeededGenerator(seed: 2)
        return DeviceToken.generate(using: &generator)
    }()
    static let secret: BoxSecret = {
        var generator = SeededGenerator(seed: 3)
        return BoxSecret.generate(using: &generator)
    }()
    /// Low PBKDF2 cost so tests stay fast; production uses the default.
    static let hasher = PasswordHasher(iterations: 1_000)

    static func bottleID(_ seed: UInt64 = 7) -> BottleID {
        var generator = SeededGenerator(seed: seed)
        return BottleID.make(at: date("2024-06-01T10:00:00Z"), using: &generator)
    }

    /// A locked nearby bottle at the Berlin box with `conditions`, created at `createdAt`.
    static func bottle(
        _ conditions: [BottleCondition] = [], createdAt: String = "2024-06-01T10:00:00Z",
        lifetime: TimeInterval = 7 * 86_400, oneShot: Bool = false, origin: BottleOrigin? = nil, seed: UInt64 = 7
    ) throws -> Bottle {
        let id = bottleID(seed)
        let draft = BottleDraft(content: BottleContent(text: "hello from the river"), hint: "look up",
                                conditions: conditions, lifetime: lifetime, isOneShot: oneShot)
        var generator = SeededGenerator(seed: seed)
        return try Bottle.create(
            draft, id: id, shareCode: ShareCode.random(using: &generator),
            origin: origin ?? BottleOrigin(boxID: boxID, position: berlin, countryCode: try CountryCode("DE")),
            creator: creatorToken.hash, now: date(createdAt))
    }

    /// Context at the Berlin box with a good 3D fix and no sensors.
    static func context(_ iso: String, synchronized: Bool = true) -> AmbientContext {
        let now = date(iso)
        return AmbientContext(
            now: now, clockSynchronized: synchronized, timeZone: berlinZone, boxID: boxID,
            gps: GPSState(receiverPresent: true, listeningSince: now.addingTimeInterval(-3600),
                          lastFix: PositionFix(position: berlin, mode: .threeD, hdop: 1.1, time: now.addingTimeInterval(-5))))
    }

    static func participant(_ token: DeviceToken = visitorToken, in bottle: BottleID) -> ParticipantID {
        ParticipantID(visitor: token.hash, bottle: bottle, secret: secret)
    }
}
