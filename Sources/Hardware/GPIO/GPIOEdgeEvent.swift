/// One edge seen on an input line.
public struct GPIOEdgeEvent: Sendable, Hashable, CustomStringConvertible {
    /// Direction of a change, in logical terms: with active-low, `.rising` means the line went low.
    public enum Edge: Sendable, Hashable {
        /// Became active (`DGPIO_EDGE_RISING`).
        case rising
        /// Became inactive (`DGPIO_EDGE_FALLING`).
        case falling

        /// The logical level after this edge.
        public var level: Bool { self == .rising }
    }

    /// Line offset on its chip.
    public var offset: UInt32
    public var edge: Edge
    /// When the kernel saw the edge, on `CLOCK_MONOTONIC` (see `MonotonicTime`).
    public var timestamp: Duration

    public init(offset: UInt32, edge: Edge, timestamp: Duration) {
        self.offset = offset
        self.edge = edge
        self.timestamp = timestamp
    }

    public var description: String { "line \(offset) \(edge) at \(timestamp)" }
}
