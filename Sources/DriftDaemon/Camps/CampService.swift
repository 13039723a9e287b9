import DriftMesh
import DriftStore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// The multi-camp protocol on this box (`docs/camps.md`): records the camp messages the
/// mesh delivers on port `camp` into the ``CampStore``, announces this box's camp every
/// ``CampSettings/announceInterval`` (±10 %) when it is one, answers pings, sends what the
/// control socket asks for, and forgets camps unheard for ``CampSettings/forgetAfter``.
///
/// Announces go at `.background` priority (the airtime budget refuses what does not fit;
/// the next interval tries again); emergencies at `.emergency` with a higher hop limit.
public final class CampService: Service, Sendable {
    /// Hands one camp message to the mesh: the message, its priority and a hop limit (`nil`: the mesh's own).
    public typealias Send = @Sendable (CampMessage, TransmitPriority, UInt8?) async throws -> Void

    /// Why a camp message could not be sent.
    public struct SendError: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    public static let component = "camps"

    let store: CampStore
    let me: NodeID?
    let settings: CampSettings
    let deliveries: AsyncStream<MeshDelivery>?
    let sendMessage: Send
    let position: @Sendable () -> CampPosition?
    let textPublisher: (@Sendable (String) async -> Void)?
    let logger: Logger
    let now: @Sendable () -> Date
    /// Sleeps between announces and sweeps (a test clock in tests).
    let clock: any Clock<Duration>
    /// Every store call runs here, never on the cooperative pool (each write waits for its fsync).
    private let lane = BlockingLane(name: "camps")
    private let lastAnnounce = Mutex<Date?>(nil)

    /// - Parameters:
    ///   - deliveries: `MeshPorts.messages(on: .camp)`; `nil` when the mesh does not run.
    ///   - position: this box's position now (for announces, emergencies and distances).
    ///   - textPublisher: when set, every camp message sent or heard is also given to it as
    ///     one plain text line (``CampText``), e.g. for a Meshtastic text channel.
    public init(store: CampStore, me: NodeID?, settings: CampSettings, deliveries: AsyncStream<MeshDelivery>?, send: @escaping Send,
                position: @escaping @Sendable () -> CampPosition?, textPublisher: (@Sendable (String) async -> Void)? = nil,
                logger: Logger, now: @escaping @Sendable () -> Date = { Date() }, clock: any Clock<Duration> = ContinuousClock()) {
        self.store = store
        self.clock = clock
        self.me = me
        self.settings = settings
        self.deliveries = deliveries
        self.sendMessage = send
        self.position = position
        self.textPublisher = textPublisher
        self.logger = logger
        self.now = now
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                if let deliveries = self.deliveries {
                    group.addTask {
                        for await delivery in deliveries { await self.handle(delivery) }
                    }
                    if self.settings.isCamp { group.addTask { await self.announceLoop() } }
                }
                group.addTask { await self.sweepLoop() }
                await group.waitForAll()
            }
        }
    }

    // MARK: Receiving

    /// Records one delivery from the mesh; undecodable bodies are logged and dropped.
    public func handle(_ delivery: MeshDelivery) async {
        let message: CampMessage
        do {
            message = try CampMessage(decoding: delivery.message.body)
        } catch {
            logger.debug("camp message dropped", metadata: ["from": "\(delivery.origin)", "problem": "\(error)"])
            return
        }
        let at = delivery.receivedAt
        var campName = ""
        do {
            switch message {
            case .ping:
                try await withStore { try $0.touch(delivery.origin, kind: .ping, at: at) }
                if settings.isCamp, shouldAnswerPing(at: now()) { try? await announce() }
                return
            case .announce(let announce):
                campName = announce.name
                if try await withStore({ try $0.upsertAnnounce(announce, from: delivery.origin, at: at) }) {
                    logger.info("camp heard", metadata: ["camp": "\(announce.name)", "node": "\(delivery.origin)", "hops": "\(delivery.hops)"])
                }
            case .chat, .request, .event, .emergency:
                let origin = delivery.origin
                let expiresAt = expiry(of: message, at: at)
                guard let record = try await withStore({ store -> CampMessageRecord? in
                    let name = try store.camps().first { $0.node == origin }?.name ?? ""
                    guard let record = CampMessageRecord(message: message, node: origin, camp: name, receivedAt: at,
                                                         expiresAt: expiresAt, fromMe: false) else { return nil }
                    try store.record(record)
                    return record
                }) else { return }
                campName = record.camp
                if case .emergency(let emergency) = message {
                    logger.critical("camp emergency", metadata: ["camp": "\(record.camp)", "node": "\(delivery.origin)",
                                                                 "kind": "\(emergency.emergency)", "text": "\(emergency.text)"])
                }
            }
        } catch {
            logger.error("camp store write failed", metadata: ["error": "\(error)"])
            return
        }
        if let textPublisher, let line = CampText.line(for: message, camp: campName) { await textPublisher(line) }
    }

    /// How long a message stays listed: events until they end (at most 7 days ahead), the rest ``CampSettings/messageLifetime``.
    func expiry(of message: CampMessage, at: Date) -> Date {
        if case .event(let event) = message {
            let end = Date(timeIntervalSince1970: Double(event.startMinute) * 60 + Double(event.durationMinutes) * 60)
            return min(max(end, at.addingTimeInterval(3_600)), at.addingTimeInterval(7 * 86_400))
        }
        return at.addingTimeInterval(settings.messageLifetime)
    }

    private func shouldAnswerPing(at instant: Date) -> Bool {
        lastAnnounce.withLock { last in
            guard let previous = last else { return true }
            return instant.timeIntervalSince(previous) >= Self.seconds(settings.pingAnswerSpacing)
        }
    }

    // MARK: Sending

    /// This box's announce now (`nil` when it is no camp).
    public var currentAnnounce: CampMessage.Announce? {
        guard settings.isCamp else { return nil }
        return CampMessage.Announce(name: settings.name, position: position(), members: settings.members, note: settings.note)
    }

    /// Sends this box's announce now (background priority).
    /// - Throws: ``SendError`` when this box is no camp or the mesh refuses it.
    public func announce() async throws {
        guard let announce = currentAnnounce else { throw SendError(description: "this box is no camp: set camp.name") }
        try await send(.announce(announce))
        lastAnnounce.withLock { $0 = now() }
    }

    /// Sends `message` at the priority its kind calls for, records it in the store
    /// (chat, requests, events and emergencies), and publishes its text line.
    public func send(_ message: CampMessage) async throws {
        let priority: TransmitPriority
        var hopLimit = settings.hopLimit
        switch message.kind {
        case .ping, .announce: priority = .background
        case .event, .request: priority = .normal
        case .chat: priority = .interactive
        case .emergency:
            priority = .emergency
            hopLimit = settings.emergencyHopLimit
        }
        do {
            _ = try message.encoded()
        } catch {
            throw SendError(description: "\(error)")
        }
        do {
            try await sendMessage(message, priority, hopLimit)
        } catch {
            throw SendError(description: "the mesh did not take it: \(error)")
        }
        let at = now()
        if let me, let record = CampMessageRecord(message: message, node: me, camp: settings.name, receivedAt: at,
                                                  expiresAt: expiry(of: message, at: at), fromMe: true) {
            _ = try? await withStore { try $0.record(record) }
        }
        if let textPublisher, let line = CampText.line(for: message, camp: settings.name) { await textPublisher(line) }
        logger.info("camp message sent", metadata: ["kind": "\(message.kind)", "priority": "\(priority)"])
    }

    /// Builds the message the control socket asks for: `kind` chat, request, event or
    /// emergency, `text`, and for requests `resource`, for emergencies `emergency` (kind),
    /// for events `title`, `start` (minutes from now, default 0) and `minutes`.
    public func message(kind: String, arguments: [String: String]) throws(SendError) -> CampMessage {
        let text = arguments["text"] ?? ""
        switch CampMessage.Kind(name: kind) {
        case .chat?:
            return .chat(.init(camp: settings.name, text: text))
        case .request?:
            let name = arguments["resource"] ?? "other"
            guard let resource = CampMessage.ResourceKind(name: name) else {
                throw SendError(description: "resource must be one of \(CampMessage.ResourceKind.allCases.map(\.description).joined(separator: ", ")), found \(name)")
            }
            return .request(.init(resource: resource, text: text))
        case .event?:
            let startOffset = Int(arguments["start"] ?? "0") ?? -1
            let minutes = Int(arguments["minutes"] ?? "60") ?? -1
            guard (0...525_600).contains(startOffset), (0...Int(UInt16.max)).contains(minutes) else {
                throw SendError(description: "start (minutes from now, 0–525600) and minutes (0–65535) must be whole numbers")
            }
            let start = UInt32(clamping: Int(now().timeIntervalSince1970 / 60) + startOffset)
            return .event(.init(title: arguments["title"] ?? (text.isEmpty ? "event" : String(text.prefix(40))), startMinute: start,
                                durationMinutes: UInt16(minutes), text: text))
        case .emergency?:
            let name = arguments["emergency"] ?? "other"
            guard let emergency = CampMessage.EmergencyKind(name: name) else {
                throw SendError(description: "emergency must be one of \(CampMessage.EmergencyKind.allCases.map(\.description).joined(separator: ", ")), found \(name)")
            }
            return .emergency(.init(emergency: emergency, text: text, position: position()))
        case .ping?:
            return .ping(nonce: UInt32.random(in: 0...UInt32.max))
        case .announce?, nil:
            throw SendError(description: "kind must be chat, request, event, emergency or ping, found \(kind)")
        }
    }

    // MARK: Directory

    /// Runs `body` with the store on the service's own thread and returns its result.
    func withStore<T: Sendable>(_ body: @Sendable (CampStore) throws -> T) async throws -> T {
        try await lane.run { [store] in try body(store) }
    }

    /// The directory and recent messages, with distances from this box.
    public func listing(messageLimit: Int = 50) async throws -> CampListing {
        let instant = now()
        let (camps, messages) = try await withStore { store in
            (try store.camps(), try store.messages(now: instant, limit: messageLimit))
        }
        return CampListing(me: settings.name, camps: camps, messages: messages, here: position())
    }

    /// How many camps the directory lists (for the metrics).
    public func campCount() async throws -> Int {
        try await withStore { try $0.counts().camps }
    }

    /// Forgets camps unheard for ``CampSettings/forgetAfter`` and deletes expired messages.
    /// - Returns: how many camps were forgotten.
    @discardableResult
    public func sweep() async throws -> Int {
        let instant = now()
        let cutoff = instant.addingTimeInterval(-Self.seconds(settings.forgetAfter))
        let forgotten = try await withStore { try $0.sweep(unseenBefore: cutoff, now: instant) }
        if forgotten > 0 { logger.info("camps forgotten", metadata: ["count": "\(forgotten)"]) }
        return forgotten
    }

    // MARK: Loops

    private func announceLoop() async {
        // The first announce soon after start (jittered so boxes powered on together do not collide).
        var wait = Duration.milliseconds(Int.random(in: 1_000...5_000))
        while !Task.isCancelled {
            do { try await clock.sleep(for: wait) } catch { return }
            do {
                try await announce()
            } catch {
                logger.notice("camp announce not sent", metadata: ["problem": "\(error)"])
            }
            wait = Self.jittered(settings.announceInterval)
        }
    }

    private func sweepLoop() async {
        while !Task.isCancelled {
            do { try await clock.sleep(for: settings.sweepInterval) } catch { return }
            do {
                try await sweep()
            } catch {
                logger.error("camp sweep failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// `interval` ±10 %.
    static func jittered(_ interval: Duration) -> Duration {
        let ms = seconds(interval) * 1_000
        return .milliseconds(Int((ms * Double.random(in: 0.9...1.1)).rounded()))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
