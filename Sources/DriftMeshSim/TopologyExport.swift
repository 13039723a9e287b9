/// A run's links and message origins, as the exact-optimum tool reads them
/// (`driftd sim mesh --export-topology`, tools/mesh-optimum/make_optimum.py).
public struct TopologyExport: Sendable, Hashable, Codable {
    public var nodes: Int
    public var seed: UInt64
    /// `[sender, receiver]`: the receiver decodes the sender at full power.
    public var links: [[Int]]
    /// FNV-1a over the links, so stored optimum data can be checked against the simulator.
    public var linkChecksum: UInt64
    /// The origin box of each message, in order.
    public var origins: [Int]

    public init(nodes: Int, seed: UInt64, links: [[Int]], linkChecksum: UInt64, origins: [Int]) {
        self.nodes = nodes
        self.seed = seed
        self.links = links
        self.linkChecksum = linkChecksum
        self.origins = origins
    }

    /// FNV-1a (64-bit) over every link's two indices as little-endian 16-bit values.
    public static func checksum(_ links: [[Int]]) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for link in links {
            for value in link {
                for byte in [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] {
                    hash ^= UInt64(byte)
                    hash = hash &* 0x100_0000_01B3
                }
            }
        }
        return hash
    }
}
