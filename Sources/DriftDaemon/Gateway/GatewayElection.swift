import DriftMesh
import Foundation

/// Which gateways of one radio mesh publish its frames to the broker.
///
/// Every gateway publishes a retained `state` (`online`, or `offline` as its last will) and a
/// retained list of its radio neighbours. Two gateways are in the same radio mesh when one
/// hears the other or they share a neighbour. Among the online gateways of one radio mesh,
/// the lowest node id forwards mesh → MQTT; the others stand by. Every gateway injects
/// MQTT → mesh: the seen-set makes the extra copies harmless. A wrong guess (a gateway that
/// does not yet know its neighbours forwards too) only costs broker traffic: the destination's
/// seen-set drops the duplicate.
public struct GatewayElection: Sendable, Equatable {
    /// What is known of another gateway.
    public struct Peer: Sendable, Equatable {
        public var online: Bool
        public var neighbours: Set<NodeID>

        public init(online: Bool, neighbours: Set<NodeID>) {
            self.online = online
            self.neighbours = neighbours
        }
    }

    public let me: NodeID
    public private(set) var peers: [NodeID: Peer] = [:]

    public init(me: NodeID) {
        self.me = me
    }

    public mutating func noteState(of node: NodeID, online: Bool) {
        guard node != me else { return }
        peers[node, default: Peer(online: online, neighbours: [])].online = online
    }

    public mutating func noteNeighbours(of node: NodeID, _ neighbours: Set<NodeID>) {
        guard node != me else { return }
        peers[node, default: Peer(online: false, neighbours: [])].neighbours = neighbours
    }

    /// Whether this gateway forwards its mesh's frames, given its own radio neighbours.
    public func isForwarder(myNeighbours: Set<NodeID>) -> Bool {
        !peers.contains { id, peer in
            peer.online && id.rawValue < me.rawValue
                && (myNeighbours.contains(id) || peer.neighbours.contains(me) || !peer.neighbours.isDisjoint(with: myNeighbours))
        }
    }

    /// The `mesh` topic's payload: `{"neighbours":["1a2b3c4d",…]}`.
    public static func encodeNeighbours(_ neighbours: Set<NodeID>) -> [UInt8] {
        let list = neighbours.map(\.rawValue).sorted().map { "\"\(GatewayTopics.nodeLevel(NodeID($0)))\"" }
        return Array("{\"neighbours\":[\(list.joined(separator: ","))]}".utf8)
    }

    /// Parses a `mesh` payload; `nil` when malformed (then ignored and counted).
    public static func decodeNeighbours(_ payload: [UInt8]) -> Set<NodeID>? {
        guard payload.count <= 16_384,
              let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any],
              let list = object["neighbours"] as? [String] else { return nil }
        var result: Set<NodeID> = []
        for entry in list {
            guard let node = GatewayTopics.node(Substring(entry)) else { return nil }
            result.insert(node)
        }
        return result
    }
}
