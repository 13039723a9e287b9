import DriftCore
import Foundation
import Synchronization

/// Keeps GPS states away from the bottle processor while no unopened bottle reads them.
///
/// The GPS reports a fix every few seconds, and each one woke the processor's thread, even on a
/// box whose bottles read no position (or that has no bottles): one switch of that thread and
/// one of the thread that sent it, per fix (docs/performance.md, "Idle"). A GPS state is a whole
/// snapshot — the latest replaces every earlier one — so the gate keeps only the latest:
/// ``admit(_:)`` records it and says whether to send it on; the processor reads ``latest``
/// whenever it judges anything, so a state held back is never lost, only not acted on at once.
/// After each pass the processor says whether its bottles read the GPS (``judged(gpsRead:generation:)``);
/// bottles written since that pass (the store's generation moved) make every state count again,
/// as in the processor's own check.
public final class AmbientGate: Sendable {
    private struct State {
        var latest: GPSState?
        var gpsRead = true
        var judgedGeneration: UInt64?
        var held = 0
    }

    private let state = Mutex(State())
    private let generation: @Sendable () -> UInt64

    /// `generation`: the bottle store's generation (``DriftStore/BottleStore/bottlesGeneration``).
    public init(generation: @escaping @Sendable () -> UInt64) {
        self.generation = generation
    }

    /// Records `gps` as the latest state; `true` when the processor should hear of it now.
    public func admit(_ gps: GPSState) -> Bool {
        let current = generation()
        return state.withLock { s in
            s.latest = gps
            if s.gpsRead || s.judgedGeneration != current { return true }
            s.held += 1
            return false
        }
    }

    /// The latest GPS state reported, held back or not.
    public var latest: GPSState? { state.withLock { $0.latest } }

    /// GPS states held back since the start.
    public var held: Int { state.withLock { $0.held } }

    /// The processor's pass at store generation `generation` found that its bottles read the GPS
    /// (`gpsRead`), or that none does.
    public func judged(gpsRead: Bool, generation: UInt64?) {
        state.withLock { s in
            s.gpsRead = gpsRead
            s.judgedGeneration = generation
        }
    }
}
