import DriftConfig
import DriftCore
import DriftMesh
import DriftStore
import DriftSystem
import Foundation
import Hardware
import Logging
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

/// How `driftd run` was asked to start.
public struct DaemonOptions: Sendable {
    /// `--config FILE`; `nil` runs the embedded simulated-board default.
    public var configPath: String?
    /// `--data-dir DIR`, overriding `storage.data_dir`.
    public var dataDirectory: String?
    /// `--listen HOST:PORT`, overriding `http.listen`.
    public var listen: String?
    /// The process environment (`NOTIFY_SOCKET`, `WATCHDOG_USEC`, `JOURNAL_STREAM`…).
    public var environment: [String: String]
    /// The version string reported by `status`.
    public var version: String
    /// Called with the visitor page's port once it listens (in-process tests with port 0).
    public var onListening: @Sendable (Int) async -> Void
    /// No real GPS date is earlier than this (the build date): the floor of GPS
    /// week-rollover correction. `nil`: ``GPSTimeSource/defaultFloor``.
    public var gpsTimeFloor: Date?

    public init(configPath: String?, dataDirectory: String?, listen: String?, environment: [String: String], version: String,
                onListening: @escaping @Sendable (Int) async -> Void = { _ in }, gpsTimeFloor: Date? = nil) {
        self.gpsTimeFloor = gpsTimeFloor
        self.configPath = configPath
        self.dataDirectory = dataDirectory
        self.listen = listen
        self.environment = environment
        self.version = version
        self.onListening = onListening
    }
}

/// A failure that stops the daemon from starting, with what to do about it.
public struct DaemonStartupError: Error, CustomStringConvertible {
    public var description: String
}

/// Builds the daemon from its configuration and runs it until SIGTERM/SIGINT.
///
/// Start-up order: configuration (with the last-known-good fallback) → data
/// directory → store (migrated) → box identity → devices → control socket;
/// then one `ServiceGroup` runs every service, the notify service last so
/// `READY=1` goes out only once everything before it is up, and it is the
/// first to stop so `STOPPING=1` goes out as soon as shutdown begins.
public enum Daemon {
    /// What counts as a usable GPS fix for position conditions: `gps.max_fix_age_s` (an older
    /// fix counts as no fix) and `gps.max_hdop`, as docs/config.md says.
    ///
    /// In the beacon profile a receiver that sleeps between position checks gives a fix once per
    /// `power.gps_wake_interval_s` + `power.gps_check_s`: a fix (the stable position) counts as
    /// fresh for that long, so a standing beacon's position stays known while its GPS sleeps;
    /// a failed check lets it age out like any other (docs/power.md, "The GPS asleep").
    ///
    /// In the default profile a settled receiver fixes once per `gps.settled_fix_interval_s`:
    /// a fix counts as fresh for at least three of those.
    static func conditionLimits(_ config: DriftConfiguration) -> ConditionLimits {
        var age = config.gps.maxFixAge
        if config.powerProfile == .beacon, config.gps.kind == .nmea || config.gps.kind == .sim, config.power.gpsReceiver != .none {
            age = max(age, config.power.gpsWakeInterval + config.power.gpsCheck)
        }
        if let settled = BoxDevices.settledFixInterval(config) {
            age = max(age, settled * 3)
        }
        return ConditionLimits(maximumFixAge: TimeInterval(age.components.seconds), maximumHDOP: config.gps.maxHDOP)
    }

    /// How often the watched loops beat and look around: the watchdog's check period — half the
    /// systemd watchdog interval (the unit's `WatchdogSec=60s` → 30 s), or 30 s without a
    /// watchdog — but never under 10 s. Every periodic liveness wake-up of an idle box — the
    /// bottle processor's heartbeat, the LED loop's idle beat, housekeeping, the mesh bottle
    /// service's looks — happens once per this, with the watchdog check (docs/performance.md,
    /// "Idle"). A shorter watchdog (the festival benchmark's 2 s) makes the checks more frequent,
    /// not the loops' work: progress is judged over their silence limits either way.
    static func livenessPeriod(watchdogInterval: Duration?) -> Duration {
        max(NotifyService.tick(watchdogInterval: watchdogInterval), .seconds(10))
    }

    /// Runs the daemon; returns when it has shut down cleanly.
    public static func run(options: DaemonOptions, logger baseLogger: Logger) async throws {
        var logger = baseLogger
        let startedAt = Date()

        // Configuration.
        let outcome: ConfigLoadOutcome?
        let loaded: LoadedConfiguration
        if let path = options.configPath {
            let fileOutcome: ConfigLoadOutcome
            do {
                fileOutcome = try ConfigLoader.loadWithFallback(path: path, dataDirectory: options.dataDirectory)
            } catch {
                throw DaemonStartupError(description: "the config file is invalid and there is no last known good copy:\n" + error.issues.map { "  \($0)" }.joined(separator: "\n"))
            }
            outcome = fileOutcome
            loaded = fileOutcome.loaded
        } else {
            outcome = nil
            loaded = ConfigLoader.loadEmbeddedDefault()
        }
        let config: DriftConfiguration
        do {
            config = try loaded.configuration.applying(dataDirectory: options.dataDirectory, listen: options.listen)
        } catch {
            throw DaemonStartupError(description: error.issues.map(\.description).joined(separator: "\n"))
        }
        logger.logLevel = Logger.Level(rawValue: config.daemon.logLevel.rawValue) ?? .info
        let configSource: String
        var configProblems: [String] = []
        switch outcome {
        case .none:
            configSource = "embedded"
            logger.notice("no --config given: running the embedded simulated-board default")
        case .primary(_, let saveProblem)?:
            configSource = "file"
            if let saveProblem {
                logger.warning("could not save the last known good config", metadata: ["error": "\(saveProblem)"])
            }
        case .lastKnownGood(_, let problem)?:
            configSource = "last-known-good"
            configProblems = problem.issues.map(\.description)
            logger.critical("config file invalid — running the last known good config", metadata: ["problems": "\(configProblems.joined(separator: " | "))"])
        }
        let problems = configProblems
        if config.mesh.usesPublishedKey {
            logger.warning("the mesh network key is a published default; set mesh.network_key before deploying")
        }

        // Data directory, store and identity (the same path as `driftd identity init`).
        let setup = try BoxSetup.open(dataDirectory: config.storage.dataDir, configuredID: config.box.id)
        let dataDirectory = setup.dataDirectory
        let database = setup.database
        let boxID = setup.boxID
        logger[metadataKey: "box"] = "\(boxID)"
        let bottleSettings: BottleSettings
        do {
            let secret = setup.secret
            let position: GeoPoint? = switch (config.box.latitude, config.box.longitude) {
            case let (latitude?, longitude?): try? GeoPoint(latitude: latitude, longitude: longitude)
            default: config.gpio.backend == .sim ? try? GeoPoint(latitude: config.sim.latitude, longitude: config.sim.longitude) : nil
            }
            bottleSettings = BottleSettings(
                boxID: try BoxID(boxID), secret: secret, timeZone: config.box.timeZone, position: position,
                country: try? CountryCode(config.box.country), hasPresenceButton: !config.buttons.presence.isEmpty,
                limits: Self.conditionLimits(config),
                survival: SurvivalPolicy(lifespan: TimeInterval(config.bottles.chatLifespan), countdown: TimeInterval(config.bottles.chatCountdown))
            )
        } catch {
            throw DaemonStartupError(description: "box identity unusable (box id \(boxID)): \(error)")
        }

        // Health and devices. One liveness period for every watched loop and the watchdog
        // (``livenessPeriod(watchdogInterval:)``): they wake together, and only that often.
        let watchdogInterval = config.daemon.watchdog ? SystemdNotifier.watchdogInterval(environment: options.environment) : nil
        let liveness = Self.livenessPeriod(watchdogInterval: watchdogInterval)
        // The one timer thread the periodic loops sleep on and run on (``TimerWheel``): an idle
        // box wakes one thread for them, not a pool worker per loop per wake.
        let wheel = TimerWheel()
        let clock = wheel.clock
        let health = HealthRegistry()
        let (ambientInputs, ambient) = AsyncStream<AmbientInput>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let gpsStatus = GPSStatus(source: config.gps.kind.rawValue)
        let events = EventBus()
        let bodyState = BoxBodyStateSource(
            health: health, store: BottleStore(database: database), configInvalid: configSource == "last-known-good",
            gps: gpsStatus, gpsConfigured: config.gps.kind != .none, logger: logger, events: events
        )
        let latest = LatestReadings()
        // GPS states wait here while no bottle reads them, instead of waking the bottle
        // processor at every fix (docs/performance.md, "Idle").
        let ambientGate = AmbientGate(generation: { [store = BottleStore(database: database)] in store.bottlesGeneration })
        let devices = BoxDevices.open(config: config, health: health, ambient: ambient, logger: logger, latest: latest, gpsStatus: gpsStatus,
            ledIdle: liveness, wheel: wheel,
            gpsTimeFloor: options.gpsTimeFloor ?? GPSTimeSource.defaultFloor, ambientGate: ambientGate,
            buttonEffects: ButtonBehaviourService.Effects(
                showStatusCode: { now in bodyState.showStatusCode(at: now) },
                runSelftest: { [logger] _ in
                    // The running box checks itself: every main loop alive, no device fault,
                    // data directory writable, database sound. (The full device walk,
                    // `driftd selftest`, needs the daemon stopped.)
                    let report = health.evaluate()
                    let storage = Selftest(config: config, environment: [:]).storageChecks()
                    let failures = report.stalled.map { "\($0) stalled" } + report.faults.map { "\($0.key): \($0.value)" }
                        + storage.filter { $0.status == .fail }.map { "\($0.name): \($0.detail)" }
                    if failures.isEmpty {
                        logger.notice("selftest (button): passed")
                    } else {
                        logger.error("selftest (button): failed", metadata: ["failures": "\(failures.joined(separator: " | "))"])
                    }
                    bodyState.showSelftestResult(passed: failures.isEmpty, at: MonotonicTime.now())
                },
                startLEDTest: { now in bodyState.startLEDTest(at: now) }
            ),
            ledTest: { now in bodyState.ledTestStart(at: now) }, ledChanges: bodyState.changes) { now in
            bodyState.state(at: now)
        }
        let bottles = BottleLifecycleService(
            database: database, dataDirectory: dataDirectory, settings: bottleSettings, events: events,
            inputs: ambientInputs, health: health, logger: logger, interval: max(.seconds(60), liveness), heartbeat: liveness,
            clock: clock, gate: ambientGate
        )

        // systemd.
        let notifier: SystemdNotifier?
        do {
            notifier = try SystemdNotifier.fromEnvironment(options.environment)
        } catch {
            logger.error("NOTIFY_SOCKET is set but unusable", metadata: ["error": "\(error)"])
            notifier = nil
        }

        // Control socket.
        let gpsTime = devices.gpsTime
        let simulatedBoard = config.gpio.backend == .sim
        let clockSource: @Sendable () -> String = {
            if simulatedBoard { return "the host's clock (simulated board)" }
            switch ClockSync.isSynchronized() {
            case true?: return "synchronised by the kernel (NTP or RTC)"
            case false? where gpsTime?.hasSetClock == true: return "set from GPS"
            case false?: return "NOT synchronised: time, date and sun conditions stay locked until NTP or a GPS fix sets it"
            case nil: return gpsTime?.hasSetClock == true ? "set from GPS" : "unknown (the kernel does not say)"
            }
        }
        // Live bottles by state, read on the processor's read lane (never on the pool).
        let liveBottleCounts: @Sendable () async -> [BottleState: Int] = { [processor = bottles.processor] in
            let counts = (try? await processor.read { try $0.stateCounts() }) ?? [:]
            return counts.filter { [.locked, .openable, .active, .dying].contains($0.key) }
        }
        let statusSnapshot: @Sendable () async -> DaemonStatus = {
            let bottleCounts = await liveBottleCounts()
            let report = health.evaluate()
            return DaemonStatus(
                version: options.version,
                box: .init(id: boxID, name: config.box.name, board: config.box.board, country: config.box.country, timezone: config.box.timezone),
                config: .init(source: configSource, files: loaded.files, problems: problems),
                dataDirectory: dataDirectory,
                startedAt: startedAt,
                uptimeSeconds: Date().timeIntervalSince(startedAt),
                health: .init(alive: report.isAlive, stalled: report.stalled, faults: report.faults),
                watchdog: watchdogInterval != nil,
                bottles: Dictionary(uniqueKeysWithValues: bottleCounts.map { ("\($0.key)", $0.value) }),
                weather: latest.latestWeather,
                gps: gpsStatus.snapshot,
                clock: clockSource()
            )
        }
        var commands = ControlCommands()
        devices.registerControlCommands(&commands)

        // The mesh: needs the feature, a network key and a radio.
        var mesh: MeshService?
        let meshPorts = MeshPorts()
        if config.features.mesh, config.radio.kind != .none, !config.mesh.networkKey.isEmpty {
            do {
                let service = try MeshSetup.make(
                    config: config, database: database, dataDirectory: dataDirectory, health: health, logger: logger,
                    ports: meshPorts, activity: { bodyState.noteRadioActivity(at: MonotonicTime.now()) }, clock: clock)
                MeshSetup.registerControlCommands(&commands, service: service)
                mesh = service
            } catch {
                logger.error("the mesh cannot start", metadata: ["problem": "\(error)"])
                health.setFault(MeshService.component, error.description)
                MeshSetup.registerDownCommands(&commands, problem: error.description)
            }
        }
        // Bottles, chat, notices and erasure across boxes ride the mesh.
        let meshBottles = mesh.map { service in
            var settings = MeshBottleService.Settings(name: config.box.name)
            // Their periodic looks (expired traces, tombstones, a position to announce) wake with
            // the liveness period rather than every 10 s.
            settings.housekeepingInterval = liveness
            settings.positionCheckInterval = liveness
            return MeshBottleService(node: service.node, ports: meshPorts, processor: bottles.processor, events: events,
                              settings: settings, logger: logger,
                              textPublisher: { line in _ = await service.publishText(line) }, clock: clock)
        }
        if let meshBottles { MeshBottleControl.register(&commands, service: meshBottles) }
        // Camp beacons: the directory always; announces, pings and sending need the mesh.
        let campSettings = CampSettings(config: config, dutyCycle: MeshSetup.dutyCycle(config))
        if campSettings.isCamp, config.camp.announceIntervalS == nil {
            logger.info("camp announce interval from the channel's duty cycle", metadata: [
                "seconds": "\(campSettings.announceInterval.components.seconds)"])
        }
        let campPosition: CampPosition? = bottleSettings.position.flatMap { CampPosition(latitude: $0.latitude, longitude: $0.longitude) }
        let ridesMeshtastic = config.radio.kind == .meshtastic
        var campText: (@Sendable (String) async -> Void)?
        if config.camp.meshtasticText, let mesh { campText = { line in _ = await mesh.publishText(line) } }
        let camps = CampService(
            store: CampStore(database: database), me: mesh?.node.me, settings: campSettings,
            deliveries: mesh == nil ? nil : meshPorts.messages(on: .camp),
            send: { [mesh] message, priority, hopLimit in
                guard let mesh else { throw CampService.SendError(description: "the mesh does not run") }
                // Riding a Meshtastic node, Meshtastic relays: our hop limit stays 0, emergencies too.
                _ = try await mesh.node.send(MeshMessage(port: MeshMessage.Port.camp.rawValue, body: try message.encoded()),
                                             priority: priority, hopLimit: ridesMeshtastic ? nil : hopLimit)
                mesh.wake()
            },
            position: { campPosition },
            textPublisher: campText,
            logger: logger, clock: clock)
        CampControl.register(&commands, service: camps, wake: { [mesh] in mesh?.wake() })
        let beaconKit = config.camp.beaconKit
        let beacon = config.powerProfile == .beacon
        commands.register("status") { [mesh] _ in
            var status = await statusSnapshot()
            status.powerProfile = config.powerProfile.rawValue
            if let mesh { status.mesh = DaemonStatus.Mesh(await mesh.status()) }
            if let listing = try? await camps.listing() {
                status.camps = DaemonStatus.Camps(me: campSettings.name, beaconKit: beaconKit, listing: listing)
            }
            return status
        }
        // A gateway (`[mqtt] enabled`): this mesh to other meshes over MQTT, telemetry, camp beacons.
        let gateway = mesh.flatMap { service in
            GatewaySetup.make(
                config: config, boxID: boxID, mesh: service, database: database, ports: meshPorts, health: health,
                telemetry: GatewayTelemetry.Sources(
                    boxID: boxID, name: config.box.name,
                    fix: {
                        let gps = gpsStatus.snapshot
                        guard let latitude = gps.latitude, let longitude = gps.longitude else { return nil }
                        return GatewayTelemetry.Fix(latitude: latitude, longitude: longitude, at: gps.at)
                    },
                    sensors: { latest.latestWeather },
                    // Called on the gateway core's own thread: a blocking read is fine there.
                    bottles: { [store = BottleStore(database: database)] in
                        let counts = (try? store.stateCounts()) ?? [:]
                        return Dictionary(uniqueKeysWithValues: counts.filter { [.locked, .openable, .active, .dying].contains($0.key) }
                            .map { ("\($0.key)", $0.value) })
                    },
                    faults: { health.evaluate().faults }),
                logger: logger)
        }
        if let gateway { commands.register("mqtt.status") { _ in await gateway.status() } }
        let control = ControlServer(path: config.controlSocketPath, commands: commands, logger: logger)

        let statusLine: @Sendable () -> String = {
            let report = health.evaluate()
            var parts = ["\(config.box.name)", "board \(config.box.board)"]
            if beacon { parts.append("beacon profile") }
            if configSource == "last-known-good" { parts.append("CONFIG INVALID (running last known good)") }
            if !report.isAlive { parts.append("stalled: \(report.stalled.joined(separator: ","))") }
            if !report.faults.isEmpty { parts.append("faults: \(report.faults.keys.sorted().joined(separator: ","))") }
            return parts.joined(separator: " · ")
        }

        // The box's own loops run on the wheel (``OnExecutor``); the visitor page and the control
        // socket keep the pool.
        var services: [any Service] = ([bodyState] + devices.services).map { OnExecutor($0, executor: wheel) }
        // On the simulated board the host's clock is the world's clock (a laptop or CI
        // machine, not a box booting without a real-time clock).
        if config.gpio.backend != .sim {
            // A clock set from GPS time is trusted although the kernel still says "unsynchronised".
            let gpsTime = devices.gpsTime
            services.append(ClockSyncService(ambient: ambient, logger: logger, probe: {
                let kernel = ClockSync.isSynchronized()
                return gpsTime?.clockTrusted(kernel: kernel) ?? kernel
            }))
        }
        // Its two loops choose the processor's own thread themselves; the rest of it (start, the
        // waits' timeouts and cancellation) stays off the pool that serves visitors: unwrapped
        // (4a02d28), the festival's chat fan-out p99 went from 90 to 111–130 ms (docs/performance.md).
        services.append(OnExecutor(bottles, executor: wheel))
        // The mesh's loops talk to the node at every step: they run on its thread.
        if let mesh { services.append(OnExecutor(mesh, executor: mesh.node.executor)) }
        if let meshBottles { services.append(OnExecutor(meshBottles, executor: wheel)) }
        if let gateway { services.append(gateway) }
        services.append(OnExecutor(camps, executor: wheel))
        var liveHub: ChatHub?
        // The beacon profile runs no visitor page (no HTTP server unless metrics are asked for).
        let servesPage = config.features.visitorPage && !beacon
        let pageListening = StartupGate()
        if servesPage {
            var limits = APILimits()
            limits.perClient = config.http.limitPerClient
            // The connection cap leaves room under the descriptor limit for the store, the
            // radio, the serial ports and the control socket (docs/installing.md).
            let descriptors = (try? DescriptorLimit.raiseToHard()) ?? 1024
            limits.door = limits.door.fitting(descriptorLimit: descriptors)
            logger.info("visitor connections capped", metadata: [
                "connections": "\(limits.door.connections)", "perClient": "\(limits.door.connectionsPerClient)",
                "descriptorLimit": "\(descriptors)"])
            let hub = ChatHub(processor: bottles.processor, events: events, logger: logger, presenceGrace: limits.presenceGrace,
                              weather: { latest.latestWeather })
            liveHub = hub
            var api = VisitorAPI(
                processor: bottles.processor, visitors: VisitorStore(database: database),
                media: MediaStore(dataDirectory: dataDirectory), hub: hub, meshBottles: meshBottles,
                box: .init(id: boxID, name: config.box.name, country: config.box.country.isEmpty ? nil : config.box.country,
                           timeZone: config.box.timeZone, simulated: config.gpio.backend == .sim, weather: { latest.latestWeather }),
                limits: limits, logger: logger)
            api.camps = { try await camps.listing(messageLimit: 20) }
            let onListening = options.onListening
            services.append(VisitorServer(api: api, host: config.http.listen.host, port: config.http.listen.port, logger: logger,
                                          health: health, onListening: { port in
                                              pageListening.open()
                                              await onListening(port)
                                          }))
        }
        if config.features.metrics {
            let hub = liveHub
            var sources = BoxMetrics.Sources(
                weather: { latest.latestWeather }, gps: { gpsStatus.snapshot },
                bottles: liveBottleCounts,
                faults: { health.evaluate().faults },
                connections: { await hub?.connectionCount ?? 0 },
                startedAt: startedAt,
                mesh: { [node = mesh?.node] in await node?.status() })
            sources.camps = { try? await camps.campCount() }
            sources.passwordHashing = { [pool = bottles.processor.passwordHashing] in pool.current }
            services.append(MetricsServer(metrics: .shared, sources: sources, host: config.metrics.listen.host,
                                          port: config.metrics.listen.port, logger: logger))
        }
        let diskCheck = DiskSpaceCheck(path: dataDirectory, minimumFreeMB: Int64(config.storage.minFreeMB), health: health, logger: logger)
        // Gives back the start-up code's pages once the box has settled, and memory a busy spell
        // left mapped later (docs/performance.md, "Giving memory back").
        var housekeeping: [(name: String, job: HousekeepingService.Job)] = [
            ("disk-space", { diskCheck.run() }),
            // Waits on serial ports, sockets and GPIO lines whose epoll registration was lost
            // end here if their descriptor is ready (docs/architecture.md).
            ("stuck-waits", { ReadinessMonitor.recheckWaits(olderThan: liveness) }),
        ]
        if config.trimsMemory {
            let memoryTrim = MemoryTrimJob(logger: logger)
            housekeeping.append(("memory-trim", { try memoryTrim.run() }))
        }
        // Housekeeping (the disk-space check, stuck waits, the memory trim) once per liveness period (30 s): a
        // disk does not fill in a second, and an idle box should not wake for it.
        services.append(OnExecutor(HousekeepingService(interval: liveness, health: health, logger: logger, jobs: housekeeping,
                                                         clock: clock), executor: wheel))
        services.append(control)
        // READY=1 once the visitor page listens (a box whose port is taken is ready after 10 s
        // anyway, with the `http` fault): whoever is told "ready" can load the page at once.
        services.append(OnExecutor(NotifyService(notifier: notifier, watchdogInterval: watchdogInterval, health: health, logger: logger,
                                                   readyAfter: servesPage ? (pageListening, .seconds(10)) : nil, clock: clock,
                                                   status: statusLine), executor: wheel))
        // Last, so it hears of a graceful shutdown first: bounds the whole stop (ServiceGroup's
        // own cancellation limit would end it in a fatalError).
        services.append(ShutdownDeadline(limit: config.daemon.shutdownTimeout + .seconds(4), logger: logger))

        var groupConfiguration = ServiceGroupConfiguration(
            services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        ShutdownDeadline.configure(&groupConfiguration, budget: config.daemon.shutdownTimeout)
        logger.info("starting", metadata: [
            "board": "\(config.box.board)", "dataDir": "\(dataDirectory)",
            "control": "\(config.controlSocketPath)", "config": "\(configSource)",
            "power": "\(config.powerProfile.rawValue)",
        ])
        let group = ServiceGroup(configuration: groupConfiguration)
        try await group.run()
        try? database.checkpointAndTruncateWAL()
        logger.notice("stopped cleanly")
    }
}

/// The box's own identity.
enum BoxIdentity {
    /// A new random box id: `box-` and 10 lowercase base-32 characters.
    static func generate() -> String {
        let alphabet = Array("abcdefghjkmnpqrstvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return "box-" + String((0..<10).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }
}

/// Facts about the data directory's file system.
enum DataDirectory {
    /// Free space available to this user, in MiB.
    static func freeMegabytes(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize) / (1024 * 1024)
    }
}
