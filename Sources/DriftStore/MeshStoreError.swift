import DriftMesh

/// Why a ``MeshStore`` operation was refused. Database failures (I/O, a full disk) come
/// through unchanged as GRDB's `DatabaseError`.
public enum MeshStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A frame with no bytes.
    case emptyFrame(PacketKey)
    /// A frame longer than ``MeshStoreLimits/maxFrameBytes``.
    case frameTooLarge(PacketKey, bytes: Int, limit: Int)
    /// An outbox message needs 1…255 frames (fragments).
    case invalidFragmentCount(PacketKey, count: Int)
    /// The message's expiry is not after its creation.
    case expiryNotAfterCreation(PacketKey)
    /// An outbox message with this id already exists.
    case duplicateMessage(PacketKey)
    /// No outbox message with this id (never enqueued, or pruned).
    case notFound(PacketKey)
    /// A public key must be 32 bytes.
    case invalidPublicKey(NodeID, length: Int)
    /// `NodeID.broadcast` names no box.
    case broadcastIsNoPeer
    /// ``MeshStore/nextPacketIDs(count:)`` hands out 1…255 consecutive ids at a time.
    case invalidPacketIDCount(Int)
    /// A stored value could not be decoded (schema drift or corruption).
    case corruptRow(table: String, column: String, value: String)

    public var description: String {
        switch self {
        case .emptyFrame(let key): "frame \(key) is empty"
        case .frameTooLarge(let key, let bytes, let limit): "frame \(key) has \(bytes) bytes, more than \(limit)"
        case .invalidFragmentCount(let key, let count): "message \(key) has \(count) fragments (1…255 allowed)"
        case .expiryNotAfterCreation(let key): "message \(key) expires before it is created"
        case .duplicateMessage(let key): "outbox message \(key) already exists"
        case .notFound(let key): "outbox message \(key) not found"
        case .invalidPublicKey(let node, let length): "public key of \(node) has \(length) bytes, not 32"
        case .broadcastIsNoPeer: "the broadcast address is not a peer"
        case .invalidPacketIDCount(let count): "cannot reserve \(count) packet ids (1…255)"
        case .corruptRow(let table, let column, let value): "stored \(table).\(column) is unreadable: \(value)"
        }
    }
}
