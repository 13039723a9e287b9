import DriftMesh

/// Shared keys and headers for the wire tests.
enum WireFixtures {
    static let networkKey: [UInt8] = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    static let otherNetworkKey: [UInt8] = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 5) }
    /// 2026-06-01 00:00 UTC in minutes since 1970.
    static let expiry: UInt32 = 29_671_200

    static func sealer() throws -> MeshSealer { try MeshSealer(networkKey: networkKey) }

    static func header(
        kind: FrameKind = .broadcast, destination: NodeID? = nil, wantsAck: Bool = false,
        fragment: MeshHeader.Fragment? = nil, packetID: UInt32 = 0x0102_0304
    ) -> MeshHeader {
        MeshHeader(
            kind: kind, origin: NodeID(0x1A2B_3C4D), packetID: packetID, destination: destination,
            hopStart: 3, wantsAck: wantsAck, fragment: fragment, expiresAtMinute: expiry)
    }

    static func payload(_ count: Int, seed: UInt8 = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }
}
