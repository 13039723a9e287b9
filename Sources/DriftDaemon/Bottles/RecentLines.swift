import DriftCore
import Synchronization

/// The last chat lines posted at this box, in memory, so that whoever fans a line out (the
/// chat hub to the live sockets, the mesh to other boxes) has it at once instead of reading
/// back what was just written: that read would queue on the read lane behind every visitor's
/// list and detail reads, and a crowded box's fan-out would wait as long as its slowest list.
///
/// Bounded (``capacity`` lines, oldest out first); a bottle's lines are forgotten when it is
/// erased, like every other trace of it.
public final class RecentLines: Sendable {
    public static let capacity = 128

    private struct State {
        var order: [MessageID] = []
        var lines: [MessageID: ChatMessage] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Keeps `message` (the oldest line goes when full).
    public func remember(_ message: ChatMessage) {
        state.withLock { state in
            if state.lines.updateValue(message, forKey: message.id) == nil { state.order.append(message.id) }
            while state.order.count > Self.capacity {
                state.lines[state.order.removeFirst()] = nil
            }
        }
    }

    /// The line, if it is one of the last ones posted here.
    public func line(_ id: MessageID) -> ChatMessage? {
        state.withLock { $0.lines[id] }
    }

    /// Drops every line of `bottles` (they were erased).
    public func forget(bottles: Set<BottleID>) {
        state.withLock { state in
            state.lines = state.lines.filter { !bottles.contains($0.value.bottle) }
            state.order.removeAll { state.lines[$0] == nil }
        }
    }

    /// Lines held now.
    public var count: Int { state.withLock { $0.lines.count } }
}
