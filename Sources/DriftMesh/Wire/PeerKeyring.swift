/// The public keys of other boxes, learned from hello frames (in memory).
///
/// Trust on first use: a key is accepted only if its hash is the node id it claims, the
/// first key for a node id wins, and a different later key is refused and counted (an
/// impostor, or a box that lost its key file and needs an operator's `forget`).
/// Bounded: beyond `capacity` new peers are refused and counted.
public struct PeerKeyring: Sendable {
    /// What `learn` did with a claimed key.
    public enum Outcome: Hashable, Sendable {
        /// A new peer, stored.
        case learned
        /// The same key as already stored.
        case known
        /// The key's hash is not the claimed node id (or the key is not 32 bytes).
        case mismatchedID
        /// A different key for a node id we already know: refused.
        case conflict
        /// The keyring is full: refused.
        case full
    }

    /// Refusals so far, for metrics.
    public struct Counters: Hashable, Sendable {
        public var mismatchedID = 0
        public var conflicts = 0
        public var full = 0
    }

    public let capacity: Int
    public private(set) var counters = Counters()
    private var keys: [NodeID: [UInt8]] = [:]

    public init(capacity: Int = 4096) {
        precondition(capacity > 0, "a keyring needs room for at least one peer")
        self.capacity = capacity
    }

    /// Stores `publicKey` for `nodeID` if it proves the id and does not replace another key.
    @discardableResult
    public mutating func learn(nodeID: NodeID, publicKey: [UInt8]) -> Outcome {
        guard publicKey.count == 32, NodeID(publicKey: publicKey) == nodeID else {
            counters.mismatchedID += 1
            return .mismatchedID
        }
        if let existing = keys[nodeID] {
            if existing == publicKey { return .known }
            counters.conflicts += 1
            return .conflict
        }
        guard keys.count < capacity else {
            counters.full += 1
            return .full
        }
        keys[nodeID] = publicKey
        return .learned
    }

    /// The stored key of `nodeID`, if any.
    public func publicKey(for nodeID: NodeID) -> [UInt8]? { keys[nodeID] }

    /// Drops a peer's key (operator action), so its next hello is trusted anew.
    public mutating func forget(_ nodeID: NodeID) { keys[nodeID] = nil }

    public var count: Int { keys.count }
}
