import DriftMesh
import DriftStore
import Foundation
import TestSupport

/// An on-disk database in a temporary directory with a ``MeshStore`` on it; ``reopen()``
/// closes nothing explicitly but opens a second, fresh connection pool on the same file.
struct MeshDisk {
    let directory: TemporaryDirectory
    let limits: MeshStoreLimits
    let store: MeshStore
    var path: String { directory.appending("drift.sqlite") }

    init(limits: MeshStoreLimits = MeshStoreLimits()) throws {
        directory = try TemporaryDirectory(prefix: "mesh")
        self.limits = limits
        store = MeshStore(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")), limits: limits)
    }

    /// A new store on the same file (what a restart sees).
    func reopen() throws -> MeshStore {
        MeshStore(database: try DriftDatabase.open(path: path), limits: limits)
    }
}

enum MeshFixtures {
    static let start = StoreFixtures.start
    static let me = NodeID(0x1A2B_3C4D)
    static let alice = NodeID(0x0000_0A11)
    static let bob = NodeID(0x0000_0B0B)

    static func key(_ origin: NodeID, _ packetID: UInt32) -> PacketKey {
        PacketKey(origin: origin, packetID: packetID)
    }

    static func at(_ seconds: TimeInterval) -> Date {
        start.addingTimeInterval(seconds)
    }

    static func frame(_ size: Int, fill: UInt8 = 0xAB) -> [UInt8] {
        [UInt8](repeating: fill, count: size)
    }

    static func publicKey(_ seed: UInt8) -> [UInt8] {
        (0..<32).map { UInt8(truncatingIfNeeded: Int($0) &* 7 &+ Int(seed)) }
    }
}

/// A generator that always yields `value` (to pin the packet id counter's random start).
struct FixedGenerator: RandomNumberGenerator {
    let value: UInt64
    mutating func next() -> UInt64 { value }
}
