import DriftMesh
import Foundation

/// A camp in the directory: the latest announce of one box, with when it was first and
/// last heard (any camp message from that box counts as heard).
public struct CampRecord: Sendable, Hashable, Codable {
    /// The node id of the camp's box.
    public var node: NodeID
    public var name: String
    public var position: CampPosition?
    public var members: Int
    public var note: String
    public var firstSeen: Date
    public var lastSeen: Date
    /// The kind of the last message heard from it (`announce`, `chat`, `emergency`, …).
    public var lastKind: String

    public init(node: NodeID, name: String, position: CampPosition?, members: Int, note: String, firstSeen: Date, lastSeen: Date, lastKind: String) {
        self.node = node
        self.name = name
        self.position = position
        self.members = members
        self.note = note
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.lastKind = lastKind
    }

    enum CodingKeys: String, CodingKey { case node, name, latitude, longitude, members, note, firstSeen, lastSeen, lastKind }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode("\(node)", forKey: .node)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(position?.latitude, forKey: .latitude)
        try c.encodeIfPresent(position?.longitude, forKey: .longitude)
        try c.encode(members, forKey: .members)
        try c.encode(note, forKey: .note)
        try c.encode(firstSeen, forKey: .firstSeen)
        try c.encode(lastSeen, forKey: .lastSeen)
        try c.encode(lastKind, forKey: .lastKind)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let nodeText = try c.decode(String.self, forKey: .node)
        guard let node = NodeID(parsing: nodeText) else {
            throw DecodingError.dataCorruptedError(forKey: .node, in: c, debugDescription: "not a node id: \(nodeText)")
        }
        self.node = node
        name = try c.decode(String.self, forKey: .name)
        let latitude = try c.decodeIfPresent(Double.self, forKey: .latitude)
        let longitude = try c.decodeIfPresent(Double.self, forKey: .longitude)
        position = if let latitude, let longitude { CampPosition(latitude: latitude, longitude: longitude) } else { nil }
        members = try c.decode(Int.self, forKey: .members)
        note = try c.decode(String.self, forKey: .note)
        firstSeen = try c.decode(Date.self, forKey: .firstSeen)
        lastSeen = try c.decode(Date.self, forKey: .lastSeen)
        lastKind = try c.decode(String.self, forKey: .lastKind)
    }
}
