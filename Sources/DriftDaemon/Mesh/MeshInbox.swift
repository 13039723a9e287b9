import DriftMesh
import Foundation
import Synchronization

/// The last messages the mesh delivered to this box, newest last, for `driftd mesh inbox`
/// and tests. Bounded: the oldest fall out.
public final class MeshInbox: Sendable {
    /// One delivered message.
    public struct Entry: Sendable, Codable, Equatable {
        public var origin: String
        public var packetID: UInt32
        public var port: UInt8
        public var text: String?
        public var bytes: Int
        public var hops: Int
        public var receivedAt: Date
    }

    private let entries = Mutex<[Entry]>([])
    private let capacity: Int

    public init(capacity: Int = 200) {
        self.capacity = capacity
    }

    public func append(_ entry: Entry) {
        entries.withLock {
            $0.append(entry)
            if $0.count > capacity { $0.removeFirst($0.count - capacity) }
        }
    }

    public var all: [Entry] { entries.withLock { $0 } }
}
