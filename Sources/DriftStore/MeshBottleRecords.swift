import DriftCore
import DriftMesh
import Foundation

/// A box of the mesh directory, from its box-info broadcasts.
public struct MeshBox: Sendable, Equatable {
    public var node: NodeID
    /// The box's configured name.
    public var name: String
    public var position: GeoPoint?
    public var country: CountryCode?
    /// Recent activity (bottles hosted and opened lately); weights drift placement.
    public var activity: Int
    public var lastSeen: Date

    public init(node: NodeID, name: String, position: GeoPoint?, country: CountryCode?, activity: Int, lastSeen: Date) {
        self.node = node
        self.name = name
        self.position = position
        self.country = country
        self.activity = activity
        self.lastSeen = lastSeen
    }
}

/// A bottle sent from this box to another: who sent it, where, under which packet id.
/// The content is not here (it lives in the mesh outbox until confirmed).
public struct MeshSentBottle: Sendable, Equatable {
    public var bottle: BottleID
    public var creator: TokenHash
    public var destination: NodeID
    public var destinationName: String
    /// Its share code: visitors here who were given it can watch the bottle from here.
    public var shareCode: ShareCode
    /// The first packet id of its mesh message (acks name it).
    public var packetID: UInt32
    public var sentAt: Date
    public var deliveredAt: Date?
    public var expiresAt: Date

    public init(bottle: BottleID, creator: TokenHash, destination: NodeID, destinationName: String, shareCode: ShareCode,
                packetID: UInt32, sentAt: Date, deliveredAt: Date? = nil, expiresAt: Date) {
        self.bottle = bottle
        self.creator = creator
        self.destination = destination
        self.destinationName = destinationName
        self.shareCode = shareCode
        self.packetID = packetID
        self.sentAt = sentAt
        self.deliveredAt = deliveredAt
        self.expiresAt = expiresAt
    }
}

/// Another box that holds part of a bottle.
public struct MeshBottleLink: Sendable, Equatable {
    public enum Role: String, Sendable, Codable {
        /// The creator's box (on the host): creator notices go there.
        case creator
        /// The host of a bottle whose chat a visitor here joined (on the participant's box).
        case host
        /// A box with visitors in this bottle's chat (on the host): lines go there.
        case participant
        /// A box with visitors watching this bottle (on the host): "openable" goes there.
        case watcher
    }

    public var bottle: BottleID
    public var node: NodeID
    public var role: Role
    public var expiresAt: Date
    /// For `host` links: the bottle's hint, shown in the list of chats open elsewhere.
    public var note: String
    /// For `host` links: the host's X25519 public key when joining needs the bottle's
    /// password (sealed to this key); `nil` when anyone may join.
    public var hostKey: [UInt8]?

    public init(bottle: BottleID, node: NodeID, role: Role, expiresAt: Date, note: String = "", hostKey: [UInt8]? = nil) {
        self.hostKey = hostKey
        self.bottle = bottle
        self.node = node
        self.role = role
        self.expiresAt = expiresAt
        self.note = note
    }
}

/// A line of a chat hosted on another box, as replicated here.
public struct MeshRemoteLine: Sendable, Equatable, Codable {
    /// The line's message id (as the host stamped it).
    public var id: String
    public var bottle: BottleID
    /// The participant's pseudonym (hex) in that bottle.
    public var participant: String
    /// Their label ("Local", "Same country", …) as the host computed it.
    public var label: String
    public var text: String
    public var sentAt: Date
    /// The line's language tag as its writer's page gave it (`und` when unknown).
    public var language: String

    public init(id: String, bottle: BottleID, participant: String, label: String, text: String, sentAt: Date, language: String = "und") {
        self.language = language
        self.id = id
        self.bottle = bottle
        self.participant = participant
        self.label = label
        self.text = text
        self.sentAt = sentAt
    }
}
