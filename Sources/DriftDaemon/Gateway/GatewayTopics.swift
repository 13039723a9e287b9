import DriftMesh

/// The MQTT topics of one network under one prefix (`docs/mqtt.md`):
///
/// - `{prefix}/{net}/frames/{node}`: sealed mesh frames a gateway carries out of its mesh (QoS 1);
/// - `{prefix}/{net}/gateway/{node}/state`: `online` / `offline` (retained; `offline` is the last will);
/// - `{prefix}/{net}/gateway/{node}/mesh`: the gateway's radio neighbours, JSON (retained; the election);
/// - `{prefix}/{net}/telemetry/{node}`: box telemetry, JSON;
/// - `{prefix}/{net}/camps`: camp beacons, JSON.
///
/// `{net}` is ``MeshSealer/networkTag(networkKey:)``, `{node}` the box's mesh node id as 8 hex digits.
public struct GatewayTopics: Sendable, Equatable {
    public let prefix: String
    public let network: String

    public init(prefix: String, network: String) {
        self.prefix = prefix
        self.network = network
    }

    /// What a topic of this network names.
    public enum Parsed: Sendable, Equatable {
        case frames(from: NodeID)
        case state(of: NodeID)
        case mesh(of: NodeID)
        case telemetry(of: NodeID)
        case camps
    }

    var base: String { "\(prefix)/\(network)" }

    public static func nodeLevel(_ node: NodeID) -> String {
        let hex = String(node.rawValue, radix: 16)
        return String(repeating: "0", count: max(0, 8 - hex.count)) + hex
    }

    public func frames(from node: NodeID) -> String { "\(base)/frames/\(Self.nodeLevel(node))" }
    public func state(of node: NodeID) -> String { "\(base)/gateway/\(Self.nodeLevel(node))/state" }
    public func mesh(of node: NodeID) -> String { "\(base)/gateway/\(Self.nodeLevel(node))/mesh" }
    public func telemetry(of node: NodeID) -> String { "\(base)/telemetry/\(Self.nodeLevel(node))" }
    public var camps: String { "\(base)/camps" }

    /// What a gateway subscribes to: every gateway's frames and presence.
    public var subscriptions: [String] { ["\(base)/frames/+", "\(base)/gateway/+/state", "\(base)/gateway/+/mesh"] }

    /// The meaning of `topic`, or `nil` when it is not one of this network's topics (or malformed).
    public func parse(_ topic: String) -> Parsed? {
        let head = base + "/"
        guard topic.hasPrefix(head) else { return nil }
        let levels = topic.dropFirst(head.count).split(separator: "/", omittingEmptySubsequences: false)
        switch levels.count {
        case 1 where levels[0] == "camps":
            return .camps
        case 2:
            guard let node = Self.node(levels[1]) else { return nil }
            switch levels[0] {
            case "frames": return .frames(from: node)
            case "telemetry": return .telemetry(of: node)
            default: return nil
            }
        case 3 where levels[0] == "gateway":
            guard let node = Self.node(levels[1]) else { return nil }
            switch levels[2] {
            case "state": return .state(of: node)
            case "mesh": return .mesh(of: node)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// An 8-hex-digit node level.
    static func node(_ level: Substring) -> NodeID? {
        guard level.count == 8, level.allSatisfy(\.isHexDigit), let value = UInt32(level, radix: 16) else { return nil }
        return NodeID(value)
    }
}
