import DriftCore
import DriftStore
import Foundation
import Logging

/// Runs the bottle rules against the store: ambient evaluation, lifecycle transitions,
/// chat survival, creator notifications and erasure. The single owner of every opened
/// bottle's ``DriftCore/ChatSurvival`` while the daemon runs.
///
/// Every method takes the time explicitly (`now`/`at`), so tests drive it with chosen
/// instants and no sleeping; ``BottleLifecycleService`` calls ``process(now:)`` at
/// ``nextDeadline(after:)`` and on every ambient input an unopened bottle reads. State changes are committed to the store (one
/// transaction each, survival and bottle state together) before events go out on the
/// ``DriftCore/EventBus``; an expired bottle is erased (rows, media, WAL) before its
/// `expired` event is published, and nothing is published for it afterwards.
///
/// Failures on one bottle are logged and counted; they never stop the others. The
/// actor runs on a thread of its own (its SQLite calls block while SQLite syncs).
/// Password keys are derived on ``passwordHashing``'s threads, never on the actor's: an
/// open that needs one awaits it, and the actor serves everyone else meanwhile.
public actor BottleProcessor {
    private nonisolated let executor = DedicatedThreadExecutor(name: "bottles")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    /// The processor's thread as a task executor: a task that prefers it runs its nonisolated
    /// steps there too (``ingest(_:now:)-(AsyncStream<AmbientInput>,_)``).
    nonisolated var threadExecutor: any TaskExecutor { executor }

    /// The store, reached only on the processor's thread: ``withStore(_:)`` from outside.
    nonisolated let store: BottleStore
    /// Reads for the visitor routes (``read(_:)``): a thread of their own on GRDB's reader
    /// connections, so a list or a chat page never queues behind the processor's writes.
    private nonisolated let reads = BlockingLane(name: "bottle-reads")
    public nonisolated let eraser: BottleEraser
    public nonisolated let settings: BottleSettings
    /// Where every bottle password is hashed and verified (the API's drops and edits too).
    public nonisolated let passwordHashing: PasswordHashingPool
    /// The last lines posted here, for the fan-out (the chat hub, the mesh) without a read back.
    public nonisolated let recentLines = RecentLines()
    let events: EventBus
    let logger: Logger

    /// The latest ambient inputs, with the latest GPS state of the ``AmbientGate`` (when there is
    /// one), whether it was sent on or held back. The weather inputs the gate held back are
    /// applied first (``takeHeldWeather()``), so every judgement sees them.
    public var ambient: AmbientState {
        takeHeldWeather()
        guard let latest = gate?.latest, latest != ambientInputs.gps else { return ambientInputs }
        var overlaid = ambientInputs
        overlaid.ingest(.gps(latest))
        return overlaid
    }

    /// Applies the weather inputs the gate held back, oldest first: before any input that came
    /// after them, and before anything is judged.
    private func takeHeldWeather() {
        for input in gate?.takeHeldWeather() ?? [] { ambientInputs.ingest(input) }
    }

    /// The ambient inputs the processor was sent.
    private var ambientInputs: AmbientState
    /// Holds GPS states and weather inputs back while no bottle reads them (`nil`: every input is sent).
    let gate: AmbientGate?
    /// Survival state of every opened bottle, as last committed.
    private var survivals: [BottleID: ChatSurvival] = [:]
    /// When each opened bottle's survival was last written (for the presence refresh).
    private var persistedAt: [BottleID: Date] = [:]
    /// Each live chat's creator, as ``creator(of:)`` read it.
    private var creators: [BottleID: ParticipantID] = [:]
    private var notifications: CreatorNotificationLimiter
    private var passwordLimiter: PasswordRateLimiter
    private var presence = PresenceBinder()
    /// Bottles whose erase failed (I/O); retried ``eraseRetry`` later.
    private var pendingErase: Set<BottleID> = []
    /// Events made and not yet handed to the bus, oldest first.
    private var eventsToDeliver: [DriftEvent] = []
    /// A pass over the bottles runs (``process(now:)``): its events wait until it ends.
    private var holdingEvents = false
    /// ``deliverEvents()`` is under way.
    private var delivering = false
    /// Deletes ended bottles' rows and media, and checkpoints the WAL (many fsyncs): off the
    /// processor's thread, so lines and opens are not held up by it.
    private nonisolated let eraseLane = BlockingLane(name: "bottle-eraser")
    /// ``erasePending(report:)`` is under way.
    private var erasing = false
    /// The latest ambient evaluation of each unopened bottle (every pass makes one), so
    /// the API can show reports without evaluating every bottle again per request.
    private var evaluations: [BottleID: Evaluated] = [:]
    /// Failures since start (per bottle operations that threw), for status and tests.
    public private(set) var failureCount = 0
    /// What the unopened bottles' conditions read from the ambient inputs (from the last pass
    /// and every evaluation since): an input nobody reads starts no pass.
    private var needs = AmbientNeeds()
    /// Where the sun was reckoned at the last pass (``AmbientNeeds/isRead(by:solarJudged:solarNow:)``).
    private var solarJudged: GeoPoint?
    /// ``DriftStore/BottleStore/bottlesGeneration`` when ``needs`` was last made from every live bottle.
    private var needsGeneration: UInt64?
    /// The earliest deadline the lifecycle service was told of (``nextDeadline(after:)``, or a
    /// sooner one a route made since): it sleeps until then unless rung (``deadlineMoved``).
    private var scheduled: Date?
    /// Rung when a deadline sooner than ``scheduled`` appears (a new bottle's delay, a chat
    /// whose last visitor left, a presence burst): the lifecycle service wakes and asks again.
    nonisolated let deadlineMoved = Doorbell()
    /// How long after a failed erase it is tried again (seconds).
    static let eraseRetry: TimeInterval = 5

    public init(database: DriftDatabase, dataDirectory: String, settings: BottleSettings, events: EventBus,
                logger: Logger, ambient: AmbientState = AmbientState(), gate: AmbientGate? = nil) {
        store = BottleStore(database: database)
        eraser = BottleEraser(database: database, media: MediaStore(dataDirectory: dataDirectory))
        self.settings = settings
        passwordHashing = PasswordHashingPool(hasher: settings.passwordHasher, configuration: settings.passwordHashing)
        self.events = events
        self.logger = logger
        self.ambientInputs = ambient
        self.gate = gate
        notifications = CreatorNotificationLimiter(policy: settings.notifications)
        passwordLimiter = PasswordRateLimiter(policy: settings.passwordLimits)
    }

    deinit {
        executor.stop()
        passwordHashing.stop()
    }

    /// Ends the processor's threads (its own, the read lane's, the password hashing pool's) once
    /// the work queued on them ran, and waits until they have ended: the lifecycle service's
    /// shutdown. A late call still runs, on a thread that ends again after it.
    public nonisolated func shutdown() async {
        await executor.stopAndJoin()
        await reads.shutdown()
        await eraseLane.shutdown()
        await passwordHashing.stopAndJoin()
    }

    /// Runs `body` with the store on the processor's own thread and returns its result: how the
    /// visitor routes, the chat hub and the mesh read and write bottles. Every SQLite call blocks
    /// (a commit waits for its fsync, tens of milliseconds on an SD card); here it never holds
    /// one of the cooperative pool's few threads, which the API, GPS and mesh loops share.
    public func withStore<T: Sendable>(_ body: @Sendable (BottleStore) throws -> T) rethrows -> T {
        try body(store)
    }

    /// Runs a read-only `body` on the read lane, not on the processor's thread: the store is
    /// SQLite in WAL mode, so a read sees every commit made before it began and waits for no
    /// write (each commit waits for its fsync, tens of milliseconds on an SD card, and the
    /// processor's thread makes them one after another). `body` must not write.
    public nonisolated func read<T: Sendable>(_ body: @Sendable (BottleStore) throws -> T) async rethrows -> T {
        let store = store
        return try await reads.run { try body(store) }
    }

    // MARK: - Start-up and ticks

    /// Start-up: finishes interrupted erasures, judges every persisted chat with
    /// ``DriftCore/ChatSurvival/resume(at:)`` (a countdown that ended while the daemon
    /// was down ends now, stamped with its real deadline), then runs a first ``process(now:)``.
    @discardableResult
    public func start(now: Date) async -> ProcessReport {
        var report = ProcessReport()
        do {
            let swept = try eraser.sweep()
            if !swept.bottles.isEmpty {
                logger.notice("finished interrupted erasures", metadata: ["bottles": "\(swept.bottles.count)"])
            }
        } catch {
            fail("sweep failed", error)
        }
        survivals = [:]
        let opened: [Bottle]
        do { opened = try store.bottles(in: [.active, .dying]) } catch {
            fail("cannot load opened bottles", error)
            return report
        }
        let stored: [BottleID: ChatSurvival]
        do { stored = try store.survivals() } catch {
            fail("cannot load chat survival states", error)
            stored = [:]
        }
        for bottle in opened {
            await resume(bottle, stored: stored[bottle.id], now: now, report: &report)
        }
        report.merge(await process(now: now))
        return report
    }

    /// One evaluation pass at `now`: ambient conditions of unopened bottles, survival
    /// deadlines of opened ones, held creator notifications, and erasure of anything
    /// stored as expired (a failed erase is retried here).
    @discardableResult
    public func process(now: Date) async -> ProcessReport {
        // The pass runs from one snapshot of the store: its events are published after it, so
        // it never suspends halfway and no open, line or expiry from a route slips in between
        // (a stale snapshot would then apply transitions to bottles that moved on or are gone).
        if holdingEvents { return await pass(now: now) }
        holdingEvents = true
        var report = await pass(now: now)
        holdingEvents = false
        // What the pass ended is erased on the eraser's lane: the processor serves routes
        // meanwhile (they see those bottles as expired), then the pass's events go out (or
        // sooner, with the events of a route that publishes during the erase).
        await erasePending(report: &report)
        await deliverEvents()
        return report
    }

    private func pass(now: Date) async -> ProcessReport {
        var report = ProcessReport()
        if let proof = presence.settle(now: now) { await proved(proof) }
        presence.prune(now: now)
        // Taken before the read: a bottle written during it makes the next input count.
        let generation = store.bottlesGeneration
        let live: [Bottle]
        do { live = try store.bottles(in: [.locked, .openable, .active, .dying]) } catch {
            fail("cannot load bottles", error)
            return report
        }
        let context = ambient.context(at: now, settings: settings)
        var seen = Set<BottleID>()
        needs = AmbientNeeds()
        needsGeneration = generation
        solarJudged = context.solarPosition()
        for bottle in live {
            seen.insert(bottle.id)
            switch bottle.state {
            case .locked, .openable:
                await evaluate(bottle, in: context, report: &report)
            case .active, .dying:
                // Opened: its conditions are judged no more (nor their deadlines).
                evaluations[bottle.id] = nil
                if survivals[bottle.id] == nil {
                    // Opened by someone else than this processor (or loaded late): judge like a restart.
                    let stored = try? store.survival(of: bottle.id)
                    await resume(bottle, stored: stored, now: now, report: &report)
                } else {
                    await tick(bottle.id, now: now, report: &report)
                }
            case .expired:
                break
            }
        }
        // GPS states and weather inputs reach the processor while a bottle of this pass reads
        // them, or once bottles change around it (the generation moves); else the gate holds
        // them (``AmbientGate``).
        gate?.judged(gpsRead: needs.position || needs.solar, weatherRead: needs.weather, generation: generation)
        // Forget chats whose bottle vanished underneath (erased elsewhere).
        for id in creators.keys where !seen.contains(id) { creators[id] = nil }
        for id in survivals.keys where !seen.contains(id) {
            survivals[id] = nil
            persistedAt[id] = nil
        }
        for id in evaluations.keys where !seen.contains(id) {
            evaluations[id] = nil
        }
        for event in notifications.flush(at: now) {
            await publish(event, keepFor: .creator)
        }
        // Bottles stored as expired by another path (or whose erase failed) are erased after the pass.
        if let leftovers = try? store.expiredIDs() { pendingErase.formUnion(leftovers) }
        return report
    }

    /// Ingests every input of `inputs` as it arrives (``ingest(_:now:)``, each at `now()`), until
    /// the stream ends or the task is cancelled. The loop waits on the processor's own thread,
    /// so an input costs one wake of that thread, not a hop from another and back, and inputs
    /// that arrive together (a weather sample's three readings) are taken in one wake.
    public func ingest(_ inputs: AsyncStream<AmbientInput>, now: @Sendable () -> Date) async {
        for await input in inputs {
            await ingest(input, now: now())
        }
    }

    /// Applies a new ambient input and re-evaluates at `now` when it changed anything
    /// an ambient condition reads. Presses of the presence button count towards the burst in
    /// progress (``DriftCore/PresenceBinder``); a burst binds, once it ends, to the waiting
    /// request with its count (settled here or by ``process(now:)``).
    @discardableResult
    public func ingest(_ input: AmbientInput, now: Date) async -> ProcessReport {
        if case .buttonPressed(let at) = input {
            if let proof = presence.buttonPressed(at: at) { await proved(proof) }
            note(presence.deadline)
            return ProcessReport()
        }
        if case .keepAliveButtonPressed(let at) = input {
            await keepAliveFromBox(at: at)
            return ProcessReport()
        }
        takeHeldWeather()
        var input = input
        if case .gps = input, let latest = gate?.latest { input = .gps(latest) }  // the newest, whatever order they came in
        guard ambientInputs.ingest(input) else { return ProcessReport() }
        // Bottles written around the processor since the last pass (a test, a tool) may read
        // anything: then every input counts until a pass has judged them.
        let solarNow = ambient.context(at: now, settings: settings).solarPosition()
        guard store.bottlesGeneration != needsGeneration || needs.isRead(by: input, solarJudged: solarJudged, solarNow: solarNow) else {
            return ProcessReport()
        }
        return await process(now: now)
    }

    /// The next instant a pass is due after the one that ran at `now`: the earliest time an
    /// unopened bottle's evaluation may change with no new input (window edges, sun phases,
    /// delays, expiry, a reading or fix going stale, rain leaving its window), a chat's
    /// countdown or hard expiry, the presence refresh of an occupied chat, the end of a presence
    /// burst, a held creator notification, an erase to retry. `nil`: only an input or a route
    /// can make one due. The lifecycle service sleeps until then; a route that makes a sooner
    /// deadline rings ``deadlineMoved``.
    public func nextDeadline(after now: Date) -> Date? {
        var earliest: Date?
        func consider(_ date: Date?) {
            guard let date else { return }
            if earliest.map({ date < $0 }) ?? true { earliest = date }
        }
        // The pass at `now` re-evaluated every unopened bottle, so their rechecks lie ahead; an
        // earlier one belongs to no bottle the pass judged and is no deadline (never a spin).
        for evaluated in evaluations.values {
            if let recheck = evaluated.evaluation.nextRecheck, recheck > now { consider(recheck) }
        }
        for (id, survival) in survivals {
            consider(survival.nextDeadline)
            if !survival.present.isEmpty {
                consider((persistedAt[id] ?? now).addingTimeInterval(settings.presencePersistInterval))
            }
        }
        consider(presence.deadline)
        consider(notifications.nextFlush)
        if !pendingErase.isEmpty { consider(now.addingTimeInterval(Self.eraseRetry)) }
        scheduled = earliest
        return earliest
    }

    /// The earliest deadline known now: the last ``nextDeadline(after:)``, or a sooner one a
    /// route or input made since. Reading it also proves the processor's thread answers (the
    /// lifecycle service's heartbeat while it sleeps).
    public var scheduledDeadline: Date? { scheduled }

    /// A chat's deadlines (countdown, hard expiry) and, while someone is inside, its presence refresh.
    private func noteDeadlines(of survival: ChatSurvival, persistedAt: Date) {
        note(survival.nextDeadline)
        if !survival.present.isEmpty { note(persistedAt.addingTimeInterval(settings.presencePersistInterval)) }
    }

    /// A deadline a route or an input just made: rings ``deadlineMoved`` when it comes before
    /// the one the lifecycle service sleeps until.
    private func note(_ deadline: Date?) {
        guard let deadline else { return }
        if let scheduled, scheduled <= deadline { return }
        scheduled = deadline
        deadlineMoved.ring()
    }

    /// A burst of presses proved `proof.visitor`'s presence: their page hears it, and if they
    /// are inside the bottle's live chat the presses also claim Keep Alive for them.
    /// The claim comes first, so whoever hears `presenceProved` finds the new keeper in place.
    private func proved(_ proof: PresenceProof) async {
        let participant = ParticipantID(visitor: proof.visitor, bottle: proof.bottle, secret: settings.secret)
        if survivals[proof.bottle] != nil {
            _ = try? await claimKeepAlive(participant, in: proof.bottle, at: proof.pressedAt)
        }
        await publish(DriftEvent(bottle: proof.bottle, at: proof.pressedAt, kind: .presenceProved(visitor: proof.visitor)), keepFor: nil)
    }

    /// When the presses in progress end and bind (``process(now:)`` is due then); `nil` with none.
    public var presenceDeadline: Date? { presence.deadline }

    /// The identity the box itself claims Keep Alive under (its keep-alive button): a
    /// fixed token hash, so the box appears in each chat as one pseudonymous keeper.
    public static let boxKeeper = try! TokenHash(hex: String(repeating: "b0", count: 32))

    /// The keep-alive button: claims Keep Alive, as the box, for every dying chat at this
    /// box (one-shot bottles have no Keep Alive and are skipped). Returns the bottles saved.
    @discardableResult
    public func keepAliveFromBox(at now: Date) async -> [BottleID] {
        let dying: [Bottle]
        do {
            dying = try store.bottles(in: [.dying])
        } catch {
            fail("cannot list dying chats for the keep-alive button", error)
            return []
        }
        var saved: [BottleID] = []
        for bottle in dying {
            do {
                try await claimKeepAlive(participant(Self.boxKeeper, in: bottle.id), in: bottle.id, at: now)
                saved.append(bottle.id)
            } catch {
                logger.info("keep-alive button: chat not saved", metadata: ["bottle": "\(bottle.id)", "reason": "\(error)"])
            }
        }
        if !saved.isEmpty {
            logger.notice("keep-alive button saved dying chats", metadata: ["count": "\(saved.count)"])
        }
        return saved
    }

    // MARK: - Visitors (called by the API)

    /// A visitor asks for a presence check: pressing the box's button the returned number of
    /// times proves their presence (``DriftCore/PresenceBinder``).
    /// - Returns: how many presses, and until when the request waits for them.
    /// - Throws: ``DriftCore/PresenceBinder/Busy`` while every press count is taken.
    @discardableResult
    public func requestPresence(visitor: TokenHash, bottle: BottleID, at now: Date) throws(PresenceBinder.Busy) -> (presses: Int, until: Date) {
        let request = try presence.request(visitor: visitor, bottle: bottle, now: now)
        return (request.presses, now.addingTimeInterval(presence.requestLifetime))
    }

    /// Re-evaluates one unopened bottle at `now` (after it was created or edited), so
    /// its state is right before the next tick.
    public func refresh(_ id: BottleID, now: Date) async {
        guard let bottle = try? store.bottle(id), bottle.state == .locked || bottle.state == .openable else { return }
        var report = ProcessReport()
        await evaluate(bottle, in: ambient.context(at: now, settings: settings), report: &report)
    }

    /// `visitor`'s pseudonym in `bottle` (same in one bottle, unlinkable across bottles).
    public nonisolated func participant(_ visitor: TokenHash, in bottle: BottleID) -> ParticipantID {
        ParticipantID(visitor: visitor, bottle: bottle, secret: settings.secret)
    }

    /// A visitor tries to open a bottle (or join its live chat): current ambient
    /// conditions before the first open, one-shot, expiry, then presence and password
    /// (rate-limited). On success the first open is recorded (distance travelled, the
    /// chat's survival starts) or the visitor enters the live chat.
    ///
    /// A password is verified only once everything else holds and the limiter admitted it,
    /// on ``passwordHashing``'s threads; the bottle is judged again as it is after that wait.
    /// - Throws: ``DriftStore/BottleStoreError/notFound(_:)`` for an unknown bottle; store failures;
    ///   ``PasswordHashingPool/Busy`` when the hashing queue is full (the attempt is not counted).
    /// `client` is the visitor's network address (password guesses are limited per address too).
    public func open(_ id: BottleID, visitor: TokenHash, password: String?, client: String? = nil, at now: Date) async throws -> OpenDecision {
        guard var bottle = try store.bottle(id) else { throw BottleStoreError.notFound(id) }
        let who = participant(visitor, in: id)
        var attempt = OpenAttempt(visitor: visitor, participant: who, password: password,
                                  presence: presence.proof(visitor: visitor, bottle: id), client: client)
        let decision: OpenDecision
        switch BottleOpener.check(bottle, in: context(at: now), attempt: attempt, limiter: &passwordLimiter) {
        case .decided(let decided):
            decision = decided
        case .verify(let hash):
            let matches = try await verify(password ?? "", against: hash, visitor: visitor, bottle: id, at: now)
            // Others were served while the key was derived: judge the bottle as it is now.
            guard let current = try store.bottle(id) else { throw BottleStoreError.notFound(id) }
            bottle = current
            attempt.presence = presence.proof(visitor: visitor, bottle: id)
            decision = BottleOpener.decide(bottle, in: context(at: now), attempt: attempt,
                                           verified: PasswordVerdict(hash: hash, matches: matches), limiter: &passwordLimiter)
        }
        switch decision.verdict {
        case .denied:
            return decision
        case .open(isFirstOpen: true):
            let wasLocked = bottle.state == .locked
            let host = ambient.position(at: now, settings: settings)
            let label = ParticipantLabel.classify(distanceMeters: 0, participantCountry: settings.country,
                                                  bottleCountry: settings.country)
            let (opened, survival) = try store.recordFirstOpen(id, by: who, hostPosition: host, box: settings.boxID,
                                                               label: label, at: now, survivalPolicy: settings.survival)
            survivals[id] = survival
            persistedAt[id] = now
            noteDeadlines(of: survival, persistedAt: now)
            if wasLocked { await publish(DriftEvent(bottle: id, at: now, kind: .becameOpenable), keepFor: nil) }
            let preferences = (try? store.preferences(of: id)) ?? NotificationPreferences()
            if let event = notifications.firstOpen(id, at: now, distance: opened.distanceTravelledMeters, preferences: preferences) {
                await publish(event, keepFor: .creator)
            }
            return decision
        case .open(isFirstOpen: false):
            try await enter(who, in: id, at: now)
            return decision
        }
    }

    /// Verifies an attempt the limiter admitted (keyed `visitor` on `bottle` at `now`) on the
    /// hashing pool; the actor serves others while it waits.
    /// - Throws: ``PasswordHashingPool/Busy`` when the queue is full; the admitted attempt is
    ///   taken back first, so a refused attempt is not counted.
    private func verify(_ attempt: String, against hash: PasswordHash, visitor: TokenHash, bottle: BottleID,
                        at now: Date) async throws(PasswordHashingPool.Busy) -> Bool {
        let pending: Pending<Bool>
        do { pending = try passwordHashing.submitVerify(attempt, against: hash) } catch {
            passwordLimiter.withdraw(visitor: visitor, bottle: bottle, admittedAt: now)
            logger.notice("password check refused: hashing queue full", metadata: ["bottle": "\(bottle)"])
            throw error
        }
        return await pending.value
    }

    /// `participant` enters the live chat (page opened or reconnected). A newcomer is
    /// announced to the creator (`participantJoined`, rate-limited).
    /// - Throws: ``DriftStore/BottleStoreError/chatClosed(_:state:)`` when the bottle has no live chat.
    /// A visitor at another box enters with `box` and `label` (their box's place relative to this one).
    public func enter(_ participant: ParticipantID, in id: BottleID, at now: Date,
                      box: BoxID? = nil, label: ParticipantLabel = .local) async throws {
        var survival = try liveSurvival(id)
        let wasPresent = survival.present.contains(participant)
        let actions: [ChatSurvival.Action]
        do { actions = try survival.enter(participant, at: now) } catch {
            throw BottleStoreError.chatClosed(id, state: .expired)
        }
        if wasPresent, actions.isEmpty {
            // Already inside (another connection, or just opened): nothing durable changed;
            // the tick persists the presence time while someone is inside.
            survivals[id] = survival
            return
        }
        let isNew = try store.recordParticipant(participant, in: id, at: now, box: box ?? settings.boxID, label: label)
        var report = ProcessReport()
        await commit(id, survival, actions, now: now, report: &report)
        // The creator hears of newcomers only, not of someone coming back.
        if isNew, !isCreator(participant, of: id) {
            let preferences = (try? store.preferences(of: id)) ?? NotificationPreferences()
            if let event = notifications.participantJoined(participant, in: id, at: now, preferences: preferences) {
                await publish(event, keepFor: .creator)
            }
            note(notifications.nextFlush)
        }
    }

    /// A visitor at another box (`box`, `node-xxxxxxxx`) asks to join this bottle's chat, or
    /// writes in it: the host's own rules decide (``DriftCore/RemoteAccess``). A participant
    /// already admitted through that same box stays admitted; otherwise a password bottle wants
    /// its password (`password`, already unsealed), checked under the same limiter as an open
    /// here with the box as the address; presence and one-shot bottles admit nobody from afar.
    /// On admission the participant enters the chat like a visitor here.
    public func admitRemote(_ participant: ParticipantID, in id: BottleID, box: BoxID, label: ParticipantLabel,
                            password: String?, at now: Date) async -> RemoteAdmission {
        guard let bottle = try? store.bottle(id), bottle.state == .active || bottle.state == .dying else {
            return .refused(.chatClosed)
        }
        let access = RemoteAccess(bottle)
        if access == .inPersonOnly { return .refused(.inPersonOnly) }
        let known = ((try? store.participants(of: id)) ?? []).contains { $0.participant == participant && $0.box == box }
        if !known, access == .password {
            guard let password, !password.isEmpty else { return .refused(.passwordNeeded) }
            guard case .password(let hash)? = bottle.conditions.first(where: { $0.condition.kind == .password })?.condition else { return .refused(.chatClosed) }
            // The limiter keys on a device token; a remote participant is keyed by its pseudonym.
            let key = (try? TokenHash(hex: participant.hex + participant.hex)) ?? Self.boxKeeper
            switch passwordLimiter.admit(visitor: key, client: box.description, bottle: id, now: now) {
            case .limited(_, let wait):
                return .refused(.tooManyAttempts(retryAfterSeconds: Int(wait.rounded(.up))))
            case .allowed:
                let matches: Bool
                do { matches = try await verify(password, against: hash, visitor: key, bottle: id, at: now) } catch {
                    return .refused(.tooManyAttempts(retryAfterSeconds: Int(error.retryAfter.rounded(.up))))
                }
                guard matches else {
                    passwordLimiter.recordFailure(visitor: key, client: box.description, bottle: id, now: now)
                    return .refused(.wrongPassword)
                }
                // The chat may have ended during the wait: entering below refuses a closed chat.
            }
        }
        do {
            try await enter(participant, in: id, at: now, box: box, label: label)
            return .admitted
        } catch {
            return .refused(.chatClosed)
        }
    }

    /// `participant` leaves (their last connection closed).
    public func leave(_ participant: ParticipantID, in id: BottleID, at now: Date) async {
        guard var survival = survivals[id] else { return }
        let actions = survival.leave(participant, at: now)
        if actions.isEmpty, !survival.present.isEmpty {
            // Others are still inside: nothing durable changed.
            survivals[id] = survival
            return
        }
        var report = ProcessReport()
        await commit(id, survival, actions, now: now, report: &report)
    }

    /// `participant` claims Keep Alive (in the page, or with the box's button).
    /// - Throws: ``DriftStore/BottleStoreError/chatClosed(_:state:)``; `SurvivalError.oneShot` for one-shot bottles.
    public func claimKeepAlive(_ participant: ParticipantID, in id: BottleID, at now: Date) async throws {
        var survival = try liveSurvival(id)
        let actions: [ChatSurvival.Action]
        do throws(SurvivalError) { actions = try survival.claimKeepAlive(by: participant, at: now) } catch {
            if error == .oneShot { throw error }
            throw BottleStoreError.chatClosed(id, state: .expired)
        }
        var report = ProcessReport()
        await commit(id, survival, actions, now: now, report: &report)
    }

    /// Stores a chat line and announces it (`linePosted`, and rate-limited
    /// `linesWhileAway` for a creator who is not inside).
    public func post(_ message: ChatMessage) async throws {
        _ = try liveSurvival(message.bottle)
        try store.append(message)
        recentLines.remember(message)
        await publish(DriftEvent(bottle: message.bottle, at: message.sentAt, kind: .linePosted(message.id, by: message.participant)), keepFor: nil)
        guard let creator = creator(of: message.bottle) else { return }
        guard message.participant != creator else { return }
        let creatorPresent = survivals[message.bottle]?.present.contains(creator) ?? false
        // With the creator inside nothing is announced whatever they chose (the default only
        // clears the held count, which their choice never lets grow): no read on this thread
        // between two lines.
        let preferences = creatorPresent ? NotificationPreferences()
            : ((try? store.preferences(of: message.bottle)) ?? NotificationPreferences())
        if let event = notifications.linePosted(in: message.bottle, at: message.sentAt, creatorPresent: creatorPresent,
                                                preferences: preferences) {
            await publish(event, keepFor: .creator)
        }
        // Lines the limiter held go out together at its next flush.
        note(notifications.nextFlush)
    }

    /// The creator retires a bottle before its first open; it is erased at once.
    /// - Throws: ``DriftStore/BottleStoreError/lifecycle(_:_:)`` (not the creator, already opened).
    public func retire(_ id: BottleID, by creator: TokenHash, at now: Date) async throws {
        try store.retire(id, by: creator, at: now)
        var report = ProcessReport()
        report.transitions.append(.init(bottle: id, trigger: .retired, at: now))
        await finish(id, reason: .retired, at: now, report: &report)
    }

    /// The ambient context (clock, position, weather) the rules read at `now`.
    public func context(at now: Date) -> AmbientContext {
        ambient.context(at: now, settings: settings)
    }

    /// An evaluation and when it was made.
    public struct Evaluated: Sendable {
        public var at: Date
        public var evaluation: BottleEvaluation
    }

    /// The evaluations of the unopened ones among `bottles` at `now`, none older than `maxAge`:
    /// those a pass (or an earlier caller) made recently, the rest made now and kept for the next
    /// caller. Passes run only at deadlines now, so a crowd's lists share one evaluation per
    /// bottle every `maxAge` instead of each list evaluating every bottle. Transitions stay with
    /// the passes: this only reports.
    public func evaluations(of bottles: [Bottle], maxAge: TimeInterval, now: Date) -> [BottleID: BottleEvaluation] {
        var found: [BottleID: BottleEvaluation] = [:]
        var context: AmbientContext?
        for bottle in bottles where bottle.state == .locked || bottle.state == .openable {
            if let kept = evaluations[bottle.id], (0...maxAge).contains(now.timeIntervalSince(kept.at)) {
                found[bottle.id] = kept.evaluation
                continue
            }
            let current = context ?? self.context(at: now)
            context = current
            let evaluation = ConditionEvaluator.evaluate(bottle, in: current)
            evaluations[bottle.id] = Evaluated(at: now, evaluation: evaluation)
            found[bottle.id] = evaluation
        }
        return found
    }

    /// The chat survival state of an opened bottle, as the processor holds it.
    public func survival(of id: BottleID) -> ChatSurvival? {
        survivals[id]
    }

    /// ``survival(of:)`` for several bottles in one call (a list asks once, not per bottle).
    public func survivals(of ids: [BottleID]) -> [BottleID: ChatSurvival] {
        var found: [BottleID: ChatSurvival] = [:]
        for id in ids { found[id] = survivals[id] }
        return found
    }

    // MARK: - Internals

    private func evaluate(_ bottle: Bottle, in context: AmbientContext, report: inout ProcessReport) async {
        let evaluation = ConditionEvaluator.evaluate(bottle, in: context)
        evaluations[bottle.id] = Evaluated(at: context.now, evaluation: evaluation)
        needs.add(bottle, box: settings.boxID)
        note(evaluation.nextRecheck)
        report.evaluated += 1
        guard let trigger = Lifecycle.ambientTrigger(for: bottle, evaluation: evaluation) else { return }
        do {
            try store.apply(trigger, to: bottle.id, at: context.now)
        } catch {
            fail("transition failed", error, bottle: bottle.id)
            return
        }
        report.transitions.append(.init(bottle: bottle.id, trigger: trigger, at: context.now))
        switch trigger {
        case .conditionsMet:
            let event = DriftEvent(bottle: bottle.id, at: context.now, kind: .becameOpenable)
            let watched = !((try? store.watches(of: bottle.id)) ?? []).isEmpty
            await publish(event, keepFor: watched ? .watchers : nil)
        case .conditionsLost:
            await publish(DriftEvent(bottle: bottle.id, at: context.now, kind: .locked), keepFor: nil)
        case .hardExpiry:
            await finish(bottle.id, reason: .hardExpiry, at: context.now, report: &report)
        default:
            break
        }
    }

    private func resume(_ bottle: Bottle, stored: ChatSurvival?, now: Date, report: inout ProcessReport) async {
        var survival: ChatSurvival
        if let stored {
            survival = stored
        } else if let opener = bottle.firstOpener, let openedAt = bottle.firstOpenedAt {
            // Should not happen (the first open writes both); rebuild so the chat still ends.
            logger.warning("opened bottle without survival state; rebuilding", metadata: ["bottle": "\(bottle.id)"])
            survival = .firstOpen(by: opener, at: openedAt, hardExpiresAt: bottle.expiresAt, isOneShot: bottle.isOneShot,
                                  policy: settings.survival)
        } else {
            fail("opened bottle without opener", BottleStoreError.notFound(bottle.id), bottle: bottle.id)
            return
        }
        var actions = survival.resume(at: now)
        // The persisted state may end in dying while the bottle row says active, or the
        // reverse, only if the store was edited by hand; align to the survival phase.
        actions = aligned(actions, for: bottle.state, survival: survival)
        await commit(bottle.id, survival, actions, now: now, report: &report)
    }

    /// Drops transitions whose source state does not match the stored bottle (only after
    /// manual edits), so a resume never fails on them.
    private func aligned(_ actions: [ChatSurvival.Action], for state: BottleState, survival: ChatSurvival) -> [ChatSurvival.Action] {
        var current = state
        return actions.filter { action in
            guard case .transition(let trigger, _) = action else { return true }
            guard let next = try? Lifecycle.transition(from: current, on: trigger) else {
                logger.warning("skipping survival transition that does not fit the stored state",
                               metadata: ["trigger": "\(trigger.rawValue)", "state": "\(current.rawValue)"])
                return false
            }
            current = next
            return true
        }
    }

    private func tick(_ id: BottleID, now: Date, report: inout ProcessReport) async {
        guard var survival = survivals[id] else { return }
        let actions = survival.tick(at: now)
        if actions.isEmpty {
            // Refresh the persisted presenceSeenAt while someone is inside.
            guard !survival.present.isEmpty else { return }
            let last = persistedAt[id] ?? .distantPast
            guard now.timeIntervalSince(last) >= settings.presencePersistInterval else {
                survivals[id] = survival
                return
            }
        }
        await commit(id, survival, actions, now: now, report: &report)
    }

    private func liveSurvival(_ id: BottleID) throws -> ChatSurvival {
        if let survival = survivals[id] { return survival }
        guard let bottle = try store.bottle(id) else { throw BottleStoreError.notFound(id) }
        throw BottleStoreError.chatClosed(id, state: bottle.state)
    }

    private func isCreator(_ participant: ParticipantID, of id: BottleID) -> Bool {
        creator(of: id) == participant
    }

    /// The creator's pseudonym in chat `id`, read once per chat (a creator never changes) so a
    /// line or a newcomer costs no read on the processor's thread; forgotten when the bottle ends.
    private func creator(of id: BottleID) -> ParticipantID? {
        if let known = creators[id] { return known }
        guard let bottle = try? store.bottle(id) else { return nil }
        let creator = ParticipantID(visitor: bottle.creator, bottle: id, secret: settings.secret)
        creators[id] = creator
        return creator
    }

    /// Commits survival + transitions, then announces them; erases when the chat ended.
    private func commit(_ id: BottleID, _ survival: ChatSurvival, _ actions: [ChatSurvival.Action], now: Date,
                        report: inout ProcessReport) async {
        do {
            try store.commit(survival, actions: actions, of: id, at: now)
        } catch {
            fail("cannot commit chat survival", error, bottle: id)
            return
        }
        survivals[id] = survival
        persistedAt[id] = now
        noteDeadlines(of: survival, persistedAt: now)
        var ended: (LifecycleTrigger, Date)?
        for (index, action) in actions.enumerated() {
            guard case .transition(let trigger, let at) = action else { continue }
            report.transitions.append(.init(bottle: id, trigger: trigger, at: at))
            switch trigger {
            case .countdownStarted:
                await publish(DriftEvent(bottle: id, at: at, kind: .dying(deadline: at.addingTimeInterval(survival.policy.countdown))), keepFor: nil)
            case .reentered, .keepAliveClaimed:
                let keeper = actions[(index + 1)...].lazy.compactMap { action -> ParticipantID? in
                    if case .keeperChanged(let claim?) = action { return claim.participant }
                    return nil
                }.first ?? survival.keeper?.participant
                if let keeper { await publish(DriftEvent(bottle: id, at: at, kind: .rescued(keeper: keeper)), keepFor: nil) }
            case .countdownEnded, .hardExpiry, .oneShotConsumed:
                ended = (trigger, at)
            default:
                break
            }
        }
        if let (reason, at) = ended {
            await finish(id, reason: reason, at: at, report: &report)
        }
    }

    /// The bottle is over: erase it, then publish its last event.
    private func finish(_ id: BottleID, reason: LifecycleTrigger, at: Date, report: inout ProcessReport) async {
        survivals[id] = nil
        persistedAt[id] = nil
        creators[id] = nil
        notifications.bottleExpired(id)
        presence.forget(bottle: id)
        recentLines.forget(bottles: [id])
        if holdingEvents {
            // Stored as expired already; erased when the pass is over (erasePending).
            pendingErase.insert(id)
        } else {
            await erase([id], at: at, report: &report)
        }
        await publish(DriftEvent(bottle: id, at: at, kind: .expired(reason: reason)), keepFor: nil)
    }

    /// Erases the bottles waiting for it (ended by a pass, or whose erase failed) on the
    /// eraser's lane; a failure leaves them waiting for the next pass.
    private func erasePending(report: inout ProcessReport) async {
        guard !pendingErase.isEmpty, !erasing else { return }
        erasing = true
        defer { erasing = false }
        let ids = pendingErase.sorted()
        recentLines.forget(bottles: Set(ids))
        let eraser = self.eraser
        do {
            let result = try await eraseLane.run { try eraser.erase(ids) }
            pendingErase.subtract(ids)
            report.erased.append(contentsOf: ids)
            logger.info("erased", metadata: ["bottles": "\(ids.map(\.description).joined(separator: ","))",
                                             "files": "\(result.filesRemoved)"])
        } catch {
            fail("erase failed; will retry", error)
        }
    }

    private func erase(_ ids: [BottleID], at now: Date, report: inout ProcessReport) async {
        do {
            recentLines.forget(bottles: Set(ids))
            let result = try eraser.erase(ids)
            pendingErase.subtract(ids)
            report.erased.append(contentsOf: ids)
            logger.info("erased", metadata: ["bottles": "\(ids.map(\.description).joined(separator: ","))",
                                             "files": "\(result.filesRemoved)"])
        } catch {
            pendingErase.formUnion(ids)
            fail("erase failed; will retry", error)
            note(now.addingTimeInterval(Self.eraseRetry))
        }
    }

    /// Publishes on the bus and, for an audience that may be offline, keeps it in the store.
    private func publish(_ event: DriftEvent, keepFor audience: EventAudience?) async {
        if audience == .creator { note(notifications.nextFlush) }
        if let audience {
            do { try store.enqueue(event, for: audience) } catch {
                logger.debug("event not kept", metadata: ["bottle": "\(event.bottle)", "error": "\(error)"])
            }
        }
        eventsToDeliver.append(event)
        if !holdingEvents { await deliverEvents() }
    }

    /// Hands the queued events to the bus one at a time, in the order they were made. A call
    /// while another delivers returns at once: that one delivers these too, after its own.
    private func deliverEvents() async {
        guard !delivering else { return }
        delivering = true
        while !eventsToDeliver.isEmpty {
            await events.publish(eventsToDeliver.removeFirst())
        }
        delivering = false
    }

    private func fail(_ message: Logger.Message, _ error: any Error, bottle: BottleID? = nil) {
        failureCount += 1
        var metadata: Logger.Metadata = ["error": "\(error)"]
        if let bottle { metadata["bottle"] = "\(bottle)" }
        logger.error(message, metadata: metadata)
    }
}
