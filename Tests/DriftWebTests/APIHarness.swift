import DriftCore
import DriftDaemon
import DriftMesh
import DriftStore
import DriftSystem
import Foundation
import HTTPTypes
import Logging
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

/// A real visitor server for one test: a SQLite file in a temporary directory, the bottle
/// lifecycle service ticking for real, the chat hub and the HTTP/WebSocket server on
/// 127.0.0.1 with a free port, all in a service group torn down when the body returns.
struct APIHarness: Sendable {
    /// What a test may tighten.
    struct Options: Sendable {
        var limits = APILimits()
        var survival = SurvivalPolicy(lifespan: 3600, countdown: 2)
        var presenceGrace: TimeInterval = 1
        var passwordLimits = PasswordRateLimiter.Policy()
        /// What derives password keys (a counting or gated hasher sees every derivation).
        var passwordHasher: any PasswordHashing = PasswordHasher(iterations: 1_000)
        /// The hashing pool's threads and queue.
        var passwordHashing = PasswordHashingPool.Configuration(threads: 2, waiting: 8)
        var hasPresenceButton = true
        /// Start with the listen port taken by another socket, released once the server
        /// reported the `http` fault (``APIHarness/sawListenFault``).
        var portTakenAtStart = false
        /// The camp directory behind `GET /api/v1/camps` (`nil`: none, an empty list).
        var camps: (@Sendable () async throws -> CampListing)?
        /// Time stands still until the test moves it (``APIHarness/advance(by:)``): the
        /// processor's ticks, the API's, the hub's and the rules' clocks all read it.
        var manualClock = false
        /// The latest weather reading the hub sends to box sockets.
        var weather: @Sendable () -> LatestReadings.Weather? = { nil }
        /// Give the API a mesh bottle service (``APIHarness/meshBottles``) on a mesh node that
        /// never transmits: what it sends stays in the node's outbox, and the test hands it what
        /// other boxes say.
        var mesh = false
        /// What the camp news for box sockets sleeps on (`nil`: the real clock).
        var campClock: ManualClock?
    }

    let directory: TemporaryDirectory
    let client: APIClient
    let processor: BottleProcessor
    let media: MediaStore
    let api: VisitorAPI
    /// With `mesh`: the service behind the mesh routes.
    var meshBottles: MeshBottleService?
    /// Ambient inputs for the lifecycle service (button presses…).
    let inputs: AsyncStream<AmbientInput>.Continuation
    /// With `portTakenAtStart`: whether the server reported the `http` fault while the port was taken.
    var sawListenFault = false
    let health: HealthRegistry
    /// With `manualClock`: the clock the processor ticks on.
    var clock: ManualClock?
    /// The wall clock every part of the server reads.
    let now: @Sendable () -> Date
    var port: Int { client.port }

    static let secret: BoxSecret = {
        var generator = SeededGenerator(seed: 7)
        return BoxSecret.generate(using: &generator)
    }()

    /// Runs `body` against a fresh server.
    static func run(_ options: Options = Options(), _ body: @Sendable (APIHarness) async throws -> Void) async throws {
        let directory = try TemporaryDirectory(prefix: "web")
        defer { directory.remove() }
        var logger = Logger(label: "web-test")
        logger.logLevel = ProcessInfo.processInfo.environment["DRIFT_TEST_LOG"] == nil ? .critical : .notice
        let database = try DriftDatabase.open(path: directory.appending("drift.sqlite"))
        let settings = BottleSettings(
            boxID: try BoxID("box-test-1"), secret: secret, timeZone: TimeZone(identifier: "UTC")!,
            position: try GeoPoint(latitude: 52.52, longitude: 13.405), country: try CountryCode("DE"),
            hasPresenceButton: options.hasPresenceButton, survival: options.survival,
            passwordHasher: options.passwordHasher, passwordLimits: options.passwordLimits,
            passwordHashing: options.passwordHashing)
        let events = EventBus()
        let (stream, feed) = AsyncStream.makeStream(of: AmbientInput.self)
        let clock = options.manualClock ? ManualClock() : nil
        let now: @Sendable () -> Date
        let service: any Service
        let processor: BottleProcessor
        if let clock {
            // Whole milliseconds, as the API writes instants.
            let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded() / 1000)
            now = {
                let offset = clock.now.offset.components
                return start.addingTimeInterval(Double(offset.seconds) + Double(offset.attoseconds) / 1e18)
            }
            let ticking = BottleLifecycleService(database: database, dataDirectory: directory.path, settings: settings, events: events,
                                                 inputs: stream, logger: logger, interval: .milliseconds(250), clock: clock, now: now)
            (service, processor) = (ticking, ticking.processor)
        } else {
            now = { Date() }
            let ticking = BottleLifecycleService(database: database, dataDirectory: directory.path, settings: settings, events: events,
                                                 inputs: stream, logger: logger, interval: .milliseconds(250))
            (service, processor) = (ticking, ticking.processor)
        }
        let hub = ChatHub(processor: processor, events: events, logger: logger, presenceGrace: options.presenceGrace,
                          weather: options.weather, clock: clock ?? ContinuousClock(), now: now)
        let media = MediaStore(dataDirectory: directory.path)
        var meshBottles: MeshBottleService?
        if options.mesh {
            let node = try MeshNode(keyPair: BoxKeyPair(), networkKey: Array("drift-web-test-network-key-32-by".utf8),
                                    store: MeshStore(database: database),
                                    budget: AirtimeBudget(window: .seconds(3_600), limit: .seconds(360)),
                                    settings: MeshNode.Settings(hopLimit: 3, messageLifetime: 3_600, modulation: .longFast, router: .standard),
                                    logger: logger)
            meshBottles = MeshBottleService(node: node, ports: MeshPorts(), processor: processor, events: events,
                                            settings: .init(name: "Test Box"), logger: logger)
        }
        var api = VisitorAPI(
            processor: processor, visitors: VisitorStore(database: database), media: media, hub: hub, meshBottles: meshBottles,
            box: .init(id: "box-test-1", name: "Test Box", country: "DE", timeZone: TimeZone(identifier: "UTC")!, simulated: true,
                       weather: options.weather),
            limits: options.limits, logger: logger, now: now)
        api.camps = options.camps
        if let campClock = options.campClock { api.campClock = campClock }
        let bound = Mutex<Int?>(nil)
        let health = HealthRegistry()
        var blocker: (socket: FileDescriptor, port: Int)?
        if options.portTakenAtStart { blocker = try TCPSocket.listenLoopback() }
        let server = VisitorServer(api: api, host: "127.0.0.1", port: blocker?.port ?? 0, logger: logger, health: health) { port in
            bound.withLock { $0 = port }
        }
        let group = ServiceGroup(services: [service, server], gracefulShutdownSignals: [], logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            var sawListenFault = false
            if let taken = blocker {
                for _ in 0..<1_500 where !sawListenFault {
                    sawListenFault = health.evaluate().faults["http"] != nil
                    if !sawListenFault { try await Task.sleep(for: .milliseconds(20)) }
                }
                try? taken.socket.close()
            }
            var port: Int?
            for _ in 0..<1_500 {
                port = bound.withLock { $0 }
                if port != nil { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            var failure: (any Error)?
            if let port {
                var harness = APIHarness(directory: directory, client: APIClient(port: port), processor: processor,
                                         media: media, api: api, inputs: feed, health: health, now: now)
                harness.sawListenFault = sawListenFault
                harness.meshBottles = meshBottles
                harness.clock = clock
                do { try await body(harness) } catch { failure = error }
            } else {
                Issue.record("the visitor server did not listen within 30 s")
            }
            await group.triggerGracefulShutdown()
            // Open sockets may hold the graceful shutdown; do not wait for ever.
            tasks.addTask {
                try await Task.sleep(for: .seconds(15))
                throw CancellationError()
            }
            _ = try? await tasks.next()
            tasks.cancelAll()
            feed.finish()
            if let failure { throw failure }
        }
    }

    // MARK: - Time

    /// With `manualClock`: moves time on by `seconds` and returns once the processor and the
    /// chat hub's sweep have both run at the new time (their events are published; sockets get
    /// them as they read).
    func advance(by seconds: Double) async throws {
        let clock = try #require(clock, "advance(by:) needs Options.manualClock")
        // Both loops are asleep, so what each runs next sees the new time…
        await clock.waitForSleepers(2)
        clock.advance(by: .milliseconds(Int64((seconds * 1000).rounded())))
        // …and each has run once it sleeps again.
        await clock.waitForSleepers(2)
    }

    // MARK: - Visitors and bottles

    /// A new device token.
    func newVisitor() async throws -> String {
        let reply = try await client.send(.post, "/api/v1/visitors")
        try #require(reply.code == 201, "POST /visitors: \(reply)")
        return try #require(reply.json["token"].string)
    }

    /// Creates a bottle from `json` and returns its view (fails the test unless 201).
    @discardableResult
    func createBottle(_ token: String, json: String = #"{"text":"hello from the river"}"#) async throws -> JSON {
        let reply = try await client.post("/api/v1/bottles", token: token, json: json)
        try #require(reply.code == 201, "POST /bottles: \(reply)")
        return reply.json
    }

    /// Creates a bottle and returns its id.
    func createBottleID(_ token: String, json: String = #"{"text":"hello from the river"}"#) async throws -> String {
        try #require(try await createBottle(token, json: json)["id"].string)
    }

    /// Opens `id` as `token`, requiring success.
    @discardableResult
    func open(_ id: String, as token: String, password: String? = nil) async throws -> JSON {
        let body = password.map { #"{"password":"\#($0)"}"# } ?? "{}"
        let reply = try await client.post("/api/v1/bottles/\(id)/open", token: token, json: body)
        try #require(reply.code == 200, "open: \(reply)")
        return reply.json
    }

    func bottle(_ id: String, as token: String) async throws -> HTTPReply {
        try await client.get("/api/v1/bottles/\(id)", token: token)
    }

    /// Connects to a bottle's live chat.
    func chatSocket(_ id: String, as token: String?) async throws -> LiveSocket {
        try await LiveSocket.connect(port: port, path: "/api/v1/bottles/\(id)/live", token: token)
    }

    /// Connects to the box live socket.
    func boxSocket(as token: String?) async throws -> LiveSocket {
        try await LiveSocket.connect(port: port, path: "/api/v1/live", token: token)
    }

    // MARK: - Files

    /// Every regular file under the data directory's media folder (relative paths, sorted).
    func mediaFiles() -> [String] {
        let root = directory.appending("media")
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [String] = []
        while let next = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(root)/\(next)", isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(next)
            }
        }
        return files.sorted()
    }

    /// Whether the bottle's media folder exists.
    func hasMediaFolder(_ id: String) -> Bool {
        guard let bottle = BottleID(id) else { return false }
        return FileManager.default.fileExists(atPath: media.folderPath(of: bottle))
    }

    // MARK: - Waiting

    /// Polls `condition` until true or `timeout` (generous: a loaded 2-core machine).
    static func eventually(timeout: Duration = .seconds(30), every interval: Duration = .milliseconds(100),
                           _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            if try await condition() { return true }
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: interval)
        }
    }
}

/// Test media, copied from the DriftMedia fixtures into this target's resources.
enum Fixture {
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"),
                               "fixture \(name) missing")
        return Array(try Data(contentsOf: url))
    }
}
