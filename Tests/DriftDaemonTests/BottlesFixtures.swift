import DriftCore
import DriftDaemon
import DriftStore
import Foundation
import Logging
import TestSupport

/// A deterministic random generator (SplitMix64).
struct BottlesGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum BottlesFixtures {
    static func date(_ iso: String) -> Date {
        guard let date = try? Date(iso, strategy: .iso8601) else { preconditionFailure("bad test date \(iso)") }
        return date
    }

    /// Saturday 1 June 2024, 10:00 UTC (12:00 in Berlin).
    static let start = date("2024-06-01T10:00:00Z")
    static let berlin = try! GeoPoint(latitude: 52.52, longitude: 13.405)
    static let boxID = try! BoxID("box-berlin-1")
    static let secret: BoxSecret = {
        var generator = BottlesGenerator(seed: 3)
        return BoxSecret.generate(using: &generator)
    }()
    static func token(_ seed: UInt64) -> TokenHash {
        var generator = BottlesGenerator(seed: seed)
        return DeviceToken.generate(using: &generator).hash
    }
    static let creator = token(1)
    static let alice = token(2)
    static let bob = token(3)

    static func bottleID(_ seed: UInt64) -> BottleID {
        var generator = BottlesGenerator(seed: seed)
        return BottleID.make(at: start, using: &generator)
    }

    static let settings = BottleSettings(
        boxID: boxID, secret: secret, timeZone: TimeZone(identifier: "Europe/Berlin")!, position: berlin,
        country: try! CountryCode("DE"), passwordHasher: PasswordHasher(iterations: 1_000))

    static func goodFix(at time: Date) -> GPSState {
        GPSState(receiverPresent: true, listeningSince: start.addingTimeInterval(-3600),
                 lastFix: PositionFix(position: berlin, mode: .threeD, hdop: 1.0, time: time))
    }
}

/// A processor over an on-disk store in a temporary directory, with an event bus
/// whose events the test reads in order.
struct BottlesHarness {
    let directory: TemporaryDirectory
    let database: DriftDatabase
    let bus: EventBus
    let processor: BottleProcessor
    /// The test's own view of the database file (the processor keeps its store to itself).
    var store: BottleStore { BottleStore(database: database) }
    var media: MediaStore { processor.eraser.media }
    private var events: AsyncStream<DriftEvent>.Iterator
    private static let sentinel = DriftEvent(bottle: BottleID(uuid: UUID()), at: .distantPast, kind: .locked)

    init(directory: TemporaryDirectory? = nil, ambient: AmbientState = AmbientState(),
         settings: BottleSettings = BottlesFixtures.settings) async throws {
        let directory = try directory ?? TemporaryDirectory(prefix: "bottles")
        self.directory = directory
        database = try DriftDatabase.open(path: directory.appending("drift.sqlite"))
        bus = EventBus()
        processor = BottleProcessor(database: database, dataDirectory: directory.path, settings: settings,
                                    events: bus, logger: Logger(label: "test"), ambient: ambient)
        events = await bus.subscribe().makeAsyncIterator()
    }

    /// Every event published since the last call, in order.
    mutating func takeEvents() async -> [DriftEvent] {
        await bus.publish(Self.sentinel)
        var taken: [DriftEvent] = []
        while let event = await events.next(), event != Self.sentinel {
            taken.append(event)
        }
        return taken
    }

    /// Event kinds since the last call.
    mutating func takeKinds() async -> [DriftEvent.Kind] {
        await takeEvents().map(\.kind)
    }

    /// Creates a locked bottle.
    @discardableResult
    func create(_ id: BottleID, text: String = "hello from the river", conditions: [BottleCondition] = [],
                lifetime: TimeInterval = 7 * 86_400, oneShot: Bool = false, at time: Date = BottlesFixtures.start) throws -> Bottle {
        let draft = BottleDraft(content: BottleContent(text: text), conditions: conditions, lifetime: lifetime, isOneShot: oneShot)
        return try store.create(draft, id: id, origin: BottleOrigin(boxID: BottlesFixtures.boxID, position: BottlesFixtures.berlin,
                                                                    countryCode: try CountryCode("DE")),
                                creator: BottlesFixtures.creator, now: time)
    }

    func participant(_ visitor: TokenHash, in bottle: BottleID) -> ParticipantID {
        processor.participant(visitor, in: bottle)
    }

    func remove() {
        directory.remove()
    }
}
