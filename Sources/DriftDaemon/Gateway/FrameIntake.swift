import DriftMesh
import Synchronization

/// The hand-over from the mesh node's thread to the gateway: a bounded buffer and a doorbell,
/// so the node never waits for the gateway. What overflows is counted.
final class FrameIntake: Sendable {
    private let state = Mutex((frames: [BridgeFrame](), overflow: 0))
    private let limit: Int
    let doorbell = Doorbell()

    init(limit: Int = 8_192) {
        self.limit = limit
    }

    func push(_ frame: BridgeFrame) {
        state.withLock { state in
            if state.frames.count >= limit { state.overflow += 1 } else { state.frames.append(frame) }
        }
        doorbell.ring()
    }

    /// Everything buffered, and the overflow count since the last take.
    func take() -> (frames: [BridgeFrame], overflow: Int) {
        state.withLock { state in
            defer { state = ([], 0) }
            return state
        }
    }
}
