import DriftCore
import Foundation
import GRDB

/// Measures the store on the real file system (`driftd bench store`): durable drops per
/// second, chat lines per second and the time to erase one bottle.
///
/// Every write is its own transaction with `synchronous=FULL`, as in production, so
/// the figures include one `fsync` of the WAL per acknowledged write. The erase time
/// includes the media folder removal and the truncating WAL checkpoint.
public struct StoreBenchmark: Sendable {
    /// The figures of one run.
    public struct Result: Sendable, Equatable, Codable {
        /// Bottles created, and chat lines appended.
        public var count: Int
        /// Durable bottle creations per second (each one transaction).
        public var dropsPerSecond: Double
        /// Durable chat line appends per second (each one transaction).
        public var chatLinesPerSecond: Double
        /// Bottles erased for the erase figure.
        public var erasedBottles: Int
        /// Chat lines and media files each erased bottle held.
        public var linesPerErasedBottle: Int
        public var mediaBytesPerErasedBottle: Int
        /// Mean and worst time to erase one bottle (rows, media, WAL checkpoint), milliseconds.
        public var eraseMillisecondsMean: Double
        public var eraseMillisecondsMax: Double
        /// `PRAGMA synchronous` during the run (2 = FULL).
        public var synchronous: Int
        /// Database file size at the end, bytes.
        public var databaseBytes: Int
    }

    /// Bottles and lines to write.
    public var count: Int
    /// Bottles to erase (default: a tenth of `count`, at least 5).
    public var eraseCount: Int
    public var linesPerErasedBottle = 20
    public var mediaBytesPerErasedBottle = 32 * 1024

    public init(count: Int, eraseCount: Int? = nil) {
        precondition(count > 0, "benchmark count must be positive")
        self.count = count
        self.eraseCount = eraseCount ?? max(5, count / 10)
    }

    /// Runs the benchmark in `directory` (a fresh database `bench.sqlite` and media tree).
    public func run(in directory: String) throws -> Result {
        let database = try DriftDatabase.open(path: "\(directory)/bench.sqlite")
        let store = BottleStore(database: database)
        let media = MediaStore(dataDirectory: directory)
        let eraser = BottleEraser(database: database, media: media)
        let creator = DeviceToken.generate().hash
        let origin = BottleOrigin(boxID: try BoxID("bench-box"), position: try GeoPoint(latitude: 52.52, longitude: 13.405),
                                  countryCode: try CountryCode("DE"))
        let secret = BoxSecret.generate()
        let clock = ContinuousClock()
        let text = String(repeating: "A bottle on the tide. ", count: 10)
        let draft = BottleDraft(content: BottleContent(text: text), hint: "look west",
                                conditions: [BottleCondition(.delay(UnlockDelay(seconds: 60))),
                                             BottleCondition(.solar([.night]))])

        // Drops.
        let dropsStart = clock.now
        for _ in 0..<count {
            let now = Date()
            _ = try store.create(draft, id: BottleID.make(at: now), origin: origin, creator: creator, now: now)
        }
        let dropsElapsed = clock.now - dropsStart

        // Chat lines, into one opened bottle.
        let chat = try openedBottle(store: store, draft: draft, origin: origin, creator: creator, secret: secret)
        let speaker = ParticipantID(visitor: creator, bottle: chat, secret: secret)
        let linesStart = clock.now
        for index in 0..<count {
            let now = Date()
            try store.append(try ChatMessage.make(id: MessageID.make(at: now), bottle: chat, participant: speaker, sentAt: now,
                                                  text: "line \(index): the wind turns south-west", language: "en"))
        }
        let linesElapsed = clock.now - linesStart

        // Erase: bottles with chat lines and a media file, erased one at a time.
        var eraseTimes: [Duration] = []
        let payload = [UInt8](repeating: 0x5A, count: mediaBytesPerErasedBottle)
        for _ in 0..<eraseCount {
            let id = try openedBottle(store: store, draft: draft, origin: origin, creator: creator, secret: secret)
            try media.write(payload, to: try MediaPath.content(bottle: id, fileName: "image.webp"))
            let participant = ParticipantID(visitor: creator, bottle: id, secret: secret)
            for index in 0..<linesPerErasedBottle {
                let now = Date()
                try store.append(try ChatMessage.make(id: MessageID.make(at: now), bottle: id, participant: participant,
                                                      sentAt: now, text: "soon gone \(index)", language: "en"))
            }
            try store.apply(.hardExpiry, to: id, at: Date())
            let eraseStart = clock.now
            try eraser.erase(id)
            eraseTimes.append(clock.now - eraseStart)
        }

        let synchronous = try database.writerSynchronous()
        let size = (try? FileManager.default.attributesOfItem(atPath: "\(directory)/bench.sqlite"))?[.size] as? Int ?? 0
        let eraseMilliseconds = eraseTimes.map(Self.milliseconds)
        return Result(
            count: count,
            dropsPerSecond: Double(count) / Self.seconds(dropsElapsed),
            chatLinesPerSecond: Double(count) / Self.seconds(linesElapsed),
            erasedBottles: eraseCount, linesPerErasedBottle: linesPerErasedBottle,
            mediaBytesPerErasedBottle: mediaBytesPerErasedBottle,
            eraseMillisecondsMean: eraseMilliseconds.reduce(0, +) / Double(max(1, eraseMilliseconds.count)),
            eraseMillisecondsMax: eraseMilliseconds.max() ?? 0,
            synchronous: synchronous, databaseBytes: size)
    }

    private func openedBottle(store: BottleStore, draft: BottleDraft, origin: BottleOrigin, creator: TokenHash,
                              secret: BoxSecret) throws -> BottleID {
        let now = Date()
        let id = BottleID.make(at: now)
        _ = try store.create(draft, id: id, origin: origin, creator: creator, now: now)
        _ = try store.recordFirstOpen(id, by: ParticipantID(visitor: creator, bottle: id, secret: secret),
                                      hostPosition: nil, at: now)
        return id
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return max(1e-9, Double(seconds) + Double(attoseconds) / 1e18)
    }

    static func milliseconds(_ duration: Duration) -> Double {
        seconds(duration) * 1000
    }
}
