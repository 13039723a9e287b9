import Foundation

/// A mesh node's memory kept in memory: the simulator's boxes and the machine's tests.
///
/// The same rules as the daemon's SQLite `MeshStore` (`docs/mesh-store.md`): the seen-set keeps
/// a key at least `seenMinimumRetention` after it was first heard and until its frame expires,
/// at most `seenMaximumRetention`; held frames are bounded by count and bytes, others'
/// soonest-expiring evicted first and this box's own last; directed outbox messages are retried
/// on the ``RetrySchedule`` and failed when it is used up; packet ids never repeat (a run never
/// wraps past `UInt32.max`). Nothing survives the value, so a "restart" keeps the value.
public struct InMemoryNodeMemory: MeshNodeMemory {
    /// Bounds and retention.
    public struct Limits: Sendable, Hashable {
        public var maxHeldPackets: Int
        public var maxHeldBytes: Int
        public var seenMinimumRetention: TimeInterval
        public var seenMaximumRetention: TimeInterval

        public init(maxHeldPackets: Int = 2_000, maxHeldBytes: Int = 512 * 1024,
                    seenMinimumRetention: TimeInterval = 24 * 3_600, seenMaximumRetention: TimeInterval = 30 * 86_400) {
            self.maxHeldPackets = maxHeldPackets
            self.maxHeldBytes = maxHeldBytes
            self.seenMinimumRetention = seenMinimumRetention
            self.seenMaximumRetention = seenMaximumRetention
        }
    }

    /// Where an outbox message stands.
    public enum OutgoingState: Sendable, Hashable {
        case queued, sent, delivered, failed
    }

    /// An outbox message.
    public struct Outgoing: Sendable, Hashable {
        public var id: PacketKey
        public var destination: NodeID?
        public var frames: [[UInt8]]
        public var fragmentCount: Int
        public var priority: Int
        public var state: OutgoingState
        public var attempts: Int
        public var nextAttemptAt: Date
        public var createdAt: Date
        public var expiresAt: Date
    }

    struct Held: Sendable {
        var frame: [UInt8]
        var receivedAt: Date
        var expiresAt: Date
        var fromMe: Bool
    }

    /// Why the memory refused a call.
    public enum Refusal: Error, Hashable {
        case duplicateMessage(PacketKey)
        case notFound(PacketKey)
        case invalidCount(Int)
    }

    public let limits: Limits
    public let retrySchedule: RetrySchedule
    /// Seen keys and when each may be forgotten.
    private var seen: [PacketKey: Date] = [:]
    private var held: [PacketKey: Held] = [:]
    private var heldBytes = 0
    public private(set) var outbox: [PacketKey: Outgoing] = [:]
    private var peers: [NodeID: [UInt8]] = [:]
    private var nextPacketID: UInt64
    /// Held frames evicted to stay within the bounds.
    public private(set) var evicted = 0

    /// An empty memory whose packet ids start at `firstPacketID` (≥ 1).
    public init(limits: Limits = Limits(), retrySchedule: RetrySchedule = .standard, firstPacketID: UInt32 = 1) {
        self.limits = limits
        self.retrySchedule = retrySchedule
        self.nextPacketID = UInt64(max(firstPacketID, 1))
    }

    // MARK: Seen-set

    public mutating func markSeen(_ key: PacketKey, expiresAt: Date, now: Date) throws -> Bool {
        guard seen[key] == nil else { return false }
        let minimum = now.addingTimeInterval(limits.seenMinimumRetention)
        let maximum = now.addingTimeInterval(limits.seenMaximumRetention)
        seen[key] = min(max(minimum, expiresAt), maximum)
        return true
    }

    /// Whether `key` is in the seen-set.
    public func isSeen(_ key: PacketKey) -> Bool { seen[key] != nil }

    public var seenCount: Int { seen.count }

    // MARK: Packet ids

    public mutating func nextPacketIDs(count: Int) throws -> UInt32 {
        guard (1...255).contains(count) else { throw Refusal.invalidCount(count) }
        let end = UInt64(UInt32.max) + 1
        if nextPacketID + UInt64(count) > end { nextPacketID = 1 }
        let first = UInt32(nextPacketID)
        nextPacketID += UInt64(count)
        return first
    }

    // MARK: Outbox

    public mutating func storeOutgoing(_ id: PacketKey, destination: NodeID?, frames: [[UInt8]], priority: Int,
                                       now: Date, expiresAt: Date) throws {
        guard outbox[id] == nil else { throw Refusal.duplicateMessage(id) }
        outbox[id] = Outgoing(id: id, destination: destination, frames: frames, fragmentCount: frames.count, priority: priority,
                              state: .queued, attempts: 0, nextAttemptAt: now, createdAt: now, expiresAt: expiresAt)
        guard destination == nil else { return }
        for (index, frame) in frames.enumerated() {
            insertHeld(id.piece(index),
                       Held(frame: frame, receivedAt: now, expiresAt: expiresAt, fromMe: true))
        }
    }

    public mutating func dueOutgoing(now: Date) throws -> [MeshDueMessage] {
        for (id, entry) in outbox where entry.state == .queued && entry.attempts >= retrySchedule.maxAttempts && entry.nextAttemptAt <= now {
            outbox[id]?.state = .failed
        }
        return outbox.values
            .filter { $0.state == .queued && $0.nextAttemptAt <= now && $0.expiresAt > now }
            .sorted { ($1.priority, $0.nextAttemptAt, $0.createdAt, $0.id) < ($0.priority, $1.nextAttemptAt, $1.createdAt, $1.id) }
            .map { MeshDueMessage(id: $0.id, destination: $0.destination, priority: $0.priority, frames: $0.frames) }
    }

    @discardableResult
    public mutating func markSent(_ id: PacketKey, now: Date) throws -> Bool {
        guard var entry = outbox[id], entry.state == .queued else { return false }
        entry.state = .sent
        entry.attempts += 1
        entry.nextAttemptAt = now
        outbox[id] = entry
        return true
    }

    public mutating func recordOutgoingAttempt(_ id: PacketKey, now: Date, jitterShare: Double) throws {
        guard var entry = outbox[id] else { throw Refusal.notFound(id) }
        guard entry.state == .queued else { return }
        if let delay = retrySchedule.delay(afterAttempt: entry.attempts) {
            entry.attempts += 1
            entry.nextAttemptAt = now.addingTimeInterval(RetrySchedule.seconds(delay + RetrySchedule.share(jitterShare, of: delay)))
        } else {
            entry.state = .failed
        }
        outbox[id] = entry
    }

    @discardableResult
    public mutating func markDelivered(_ id: PacketKey) throws -> Bool {
        guard var entry = outbox[id] else { return false }
        entry.state = .delivered
        entry.frames = []
        outbox[id] = entry
        for index in 0..<entry.fragmentCount {
            removeHeld(id.piece(index))
        }
        return true
    }

    public func waitingOutgoingCount() throws -> Int {
        outbox.values.filter { $0.state == .queued }.count
    }

    // MARK: Held frames

    public mutating func holdHeard(_ key: PacketKey, kind: FrameKind, destination: NodeID?, frame: [UInt8],
                                   receivedAt: Date, expiresAt: Date) throws {
        insertHeld(key, Held(frame: frame, receivedAt: receivedAt, expiresAt: expiresAt, fromMe: false))
    }

    public func heldKeys(limit: Int) throws -> [PacketKey] {
        guard limit > 0 else { return [] }
        return held.sorted { ($1.value.receivedAt, $0.key) < ($0.value.receivedAt, $1.key) }.prefix(limit).map(\.key)
    }

    public func heldReceipts(since: Date, limit: Int) throws -> [MeshHeldReceipt] {
        guard limit > 0 else { return [] }
        return held.filter { $0.value.receivedAt >= since }
            .sorted { ($1.value.receivedAt, $0.key) < ($0.value.receivedAt, $1.key) }.prefix(limit)
            .map { MeshHeldReceipt(key: $0.key, receivedAt: $0.value.receivedAt) }
    }

    public func heldFrames(for keys: [PacketKey]) throws -> [MeshHeldFrame] {
        keys.compactMap { key in held[key].map { MeshHeldFrame(key: key, frame: $0.frame) } }
    }

    /// Whether a frame of `key` is held.
    public func holds(_ key: PacketKey) -> Bool { held[key] != nil }

    public var heldCount: Int { held.count }

    /// Forgets the held frames of `origin` with these packet ids.
    public mutating func forget(origin: NodeID, packetIDs: [UInt32]) {
        for id in packetIDs { removeHeld(PacketKey(origin: origin, packetID: id)) }
    }

    private mutating func insertHeld(_ key: PacketKey, _ frame: Held) {
        guard held[key] == nil else { return }
        held[key] = frame
        heldBytes += frame.frame.count
        guard held.count > limits.maxHeldPackets || heldBytes > limits.maxHeldBytes else { return }
        // Others' soonest-expiring first, this box's own last.
        let victims = held.sorted {
            ($0.value.fromMe ? 1 : 0, $0.value.expiresAt, $0.value.receivedAt, $0.key)
                < ($1.value.fromMe ? 1 : 0, $1.value.expiresAt, $1.value.receivedAt, $1.key)
        }
        for (victim, _) in victims where held.count > limits.maxHeldPackets || heldBytes > limits.maxHeldBytes {
            removeHeld(victim)
            evicted += 1
        }
    }

    private mutating func removeHeld(_ key: PacketKey) {
        if let gone = held.removeValue(forKey: key) { heldBytes -= gone.frame.count }
    }

    // MARK: Peers

    public func rememberedPeers() throws -> [MeshRememberedPeer] {
        peers.sorted { $0.key < $1.key }.map { MeshRememberedPeer(node: $0.key, publicKey: $0.value) }
    }

    public mutating func rememberHello(from node: NodeID, publicKey: [UInt8], at now: Date, link: LinkQuality, hops: Int) throws {
        if peers[node] == nil { peers[node] = publicKey }
    }

    // MARK: Housekeeping

    public mutating func forgetExpired(now: Date) throws {
        seen = seen.filter { $0.value > now }
        for (key, frame) in held where frame.expiresAt <= now { removeHeld(key) }
        outbox = outbox.filter { $0.value.expiresAt > now }
    }
}
