import Foundation

/// The exact optimum of a collision-free broadcast per topology and origin, as
/// tools/mesh-optimum/make_optimum.py stores it (a HiGHS MILP; see docs/mesh-simulation.md).
public struct MeshOptimum: Sendable, Hashable, Codable {
    public var timeLimitSeconds: Double
    /// MILPs that hit the time limit (their figures are the best found, with a gap).
    public var notProvenOptimal: Int
    public var instances: [Instance]

    /// One simulator topology (`nodes`, `seed`), identified by its link checksum.
    public struct Instance: Sendable, Hashable, Codable {
        public var nodes: Int
        public var seed: UInt64
        public var links: Int
        public var linkChecksum: UInt64
        /// By origin index (a string, as JSON keys are).
        public var origins: [String: Origin]
    }

    /// The optimum broadcast from one origin.
    public struct Origin: Sendable, Hashable, Codable {
        /// Boxes reachable from the origin (one-way links count), the origin excluded.
        public var reached: Int
        /// Fewest frames reaching all of them, and that plan's receptions.
        public var minFrames: Int
        public var minFramesReceptions: Int
        public var minFramesStatus: String
        public var minFramesGap: Double
        /// Fewest receptions (every box in range decodes every frame), and that plan's frames.
        public var minReceptions: Int
        public var minReceptionsFrames: Int
        public var minReceptionsStatus: String
        public var minReceptionsGap: Double
    }

    public init(json: Data) throws {
        self = try JSONDecoder().decode(MeshOptimum.self, from: json)
    }

    /// The stored instance for a run, if its links are the ones stored.
    public func instance(nodes: Int, seed: UInt64, linkChecksum: UInt64) -> Instance? {
        instances.first { $0.nodes == nodes && $0.seed == seed && $0.linkChecksum == linkChecksum }
    }
}
