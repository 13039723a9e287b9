import Foundation

/// What a mesh node remembers across restarts: the seen-set, its packet id counter, the
/// outbox of its own messages, the frames it holds for neighbours, and its neighbours' keys.
///
/// ``MeshNodeMachine`` makes every decision; this is where it reads and writes what those
/// decisions need to outlive the process. The daemon's conformance is `MeshStore` (SQLite,
/// every call one transaction, `docs/mesh-store.md`); the simulator and the machine's tests
/// use ``InMemoryNodeMemory``, which keeps the same rules in memory. Calls are synchronous and
/// take the time they act at as an argument: a conformance never reads a clock.
public protocol MeshNodeMemory: Sendable {
    // MARK: Seen-set

    /// Records that `key` was heard; `true` the first time, `false` for a duplicate.
    mutating func markSeen(_ key: PacketKey, expiresAt: Date, now: Date) throws -> Bool

    // MARK: Packet ids

    /// `count` (1…255) consecutive packet ids never handed out before; returns the first.
    mutating func nextPacketIDs(count: Int) throws -> UInt32

    // MARK: Outbox

    /// Stores a new message of this box, due at once; a broadcast's frames are also held
    /// (``heldKeys(limit:)``) so catch-up serves them.
    mutating func storeOutgoing(_ id: PacketKey, destination: NodeID?, frames: [[UInt8]], priority: Int,
                                now: Date, expiresAt: Date) throws
    /// The queued messages due at `now`, most urgent first, then oldest due. A directed
    /// message whose attempts are used up and whose last wait has passed is failed instead.
    mutating func dueOutgoing(now: Date) throws -> [MeshDueMessage]
    /// A broadcast went out for the first time. `false` when it was not queued.
    @discardableResult
    mutating func markSent(_ id: PacketKey, now: Date) throws -> Bool
    /// A directed message went out: its next attempt waits on the retry schedule, plus
    /// `jitterShare` (0…1) of that wait (``MeshNodeMachine/Settings/outboxRetryJitter``).
    mutating func recordOutgoingAttempt(_ id: PacketKey, now: Date, jitterShare: Double) throws
    /// The destination acknowledged a directed message: delivered, frames dropped. `false`
    /// when no such message is in the outbox.
    @discardableResult
    mutating func markDelivered(_ id: PacketKey) throws -> Bool
    /// Messages waiting for a (next) transmission.
    func waitingOutgoingCount() throws -> Int

    // MARK: Held frames

    /// Holds a frame heard from another box for neighbours that miss it (ignored if held).
    mutating func holdHeard(_ key: PacketKey, kind: FrameKind, destination: NodeID?, frame: [UInt8],
                            receivedAt: Date, expiresAt: Date) throws
    /// Keys of held frames, most recently received first (a digest's contents).
    func heldKeys(limit: Int) throws -> [PacketKey]
    /// Held frames received at or after `since` with when, most recently received first: what
    /// a box that starts again got lately (paced repair's compact digest lists them).
    func heldReceipts(since: Date, limit: Int) throws -> [MeshHeldReceipt]
    /// The held frames for `keys`, in the order asked; keys not held are skipped.
    func heldFrames(for keys: [PacketKey]) throws -> [MeshHeldFrame]

    // MARK: Peers

    /// The keys of boxes heard before (trusted on first use).
    func rememberedPeers() throws -> [MeshRememberedPeer]
    /// A neighbour's hello: its key, link and distance.
    mutating func rememberHello(from node: NodeID, publicKey: [UInt8], at now: Date, link: LinkQuality, hops: Int) throws

    // MARK: Housekeeping

    /// Drops what expired by `now`: seen-set entries, held frames, outbox messages.
    mutating func forgetExpired(now: Date) throws
}

/// A message of this box's outbox that is due for transmission.
public struct MeshDueMessage: Sendable, Hashable {
    /// The origin (this box) and the first fragment's packet id.
    public var id: PacketKey
    /// `nil` for a broadcast.
    public var destination: NodeID?
    /// ``TransmitPriority`` raw value.
    public var priority: Int
    /// The sealed frames, fragment 0 first.
    public var frames: [[UInt8]]

    public init(id: PacketKey, destination: NodeID?, priority: Int, frames: [[UInt8]]) {
        self.id = id
        self.destination = destination
        self.priority = priority
        self.frames = frames
    }

    public var isBroadcast: Bool { destination == nil }
}

/// A held frame: its key and the sealed bytes as heard or sent.
public struct MeshHeldFrame: Sendable, Hashable {
    public var key: PacketKey
    public var frame: [UInt8]

    public init(key: PacketKey, frame: [UInt8]) {
        self.key = key
        self.frame = frame
    }
}

/// A box whose key this box learned from its hello.
public struct MeshRememberedPeer: Sendable, Hashable {
    public var node: NodeID
    public var publicKey: [UInt8]

    public init(node: NodeID, publicKey: [UInt8]) {
        self.node = node
        self.publicKey = publicKey
    }
}

/// A held frame's key and when this box received it (or stored it, for its own broadcast).
public struct MeshHeldReceipt: Sendable, Hashable {
    public var key: PacketKey
    public var receivedAt: Date

    public init(key: PacketKey, receivedAt: Date) {
        self.key = key
        self.receivedAt = receivedAt
    }
}
