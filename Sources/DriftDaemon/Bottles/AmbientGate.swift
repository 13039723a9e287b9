import DriftCore
import Foundation
import Synchronization

/// Keeps GPS states and weather inputs away from the bottle processor while no unopened bottle
/// reads them.
///
/// The GPS reports a fix every few seconds, and each one woke the processor's thread, even on a
/// box whose bottles read no position (or that has no bottles): one switch of that thread and
/// one of the thread that sent it, per fix (docs/performance.md, "Idle"). A GPS state is a whole
/// snapshot — the latest replaces every earlier one — so the gate keeps only the latest:
/// ``admit(_:)`` records it and says whether to send it on; the processor reads ``latest``
/// whenever it judges anything, so a state held back is never lost, only not acted on at once.
///
/// Weather inputs (a sample's readings every 30 s, rain tips) woke it the same way. They build
/// histories (a pressure trend reads a day of them), so none may be dropped: ``admitWeather(_:)``
/// keeps those it holds back, in order, and the processor takes them (``takeHeldWeather()``)
/// before it applies any input or judges anything — so a bottle dropped later still sees the
/// whole history, and an input sent on never overtakes one held before it. At most
/// ``maximumHeldWeather`` are held; the next one is sent on and wakes the processor to take them.
///
/// After each pass the processor says whether its bottles read the GPS or the weather
/// (``judged(gpsRead:weatherRead:generation:)``); bottles written since that pass (the store's
/// generation moved) make every input count again, as in the processor's own check.
public final class AmbientGate: Sendable {
    private struct State {
        var latest: GPSState?
        var gpsRead = true
        var weatherRead = true
        var judgedGeneration: UInt64?
        var held = 0
        var heldWeather: [AmbientInput] = []
    }

    /// Most weather inputs held back at once (about 2.8 hours of a sample's three readings every
    /// 30 s; the processor takes them at its next wake, usually within a minute).
    public static let maximumHeldWeather = 1_024

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

    /// Records a weather input (a reading, a rain tip, the rain gauge starting, a weather
    /// snapshot); `true` when the processor should have it now, `false` when it is held back
    /// for the processor's next wake (``takeHeldWeather()``).
    public func admitWeather(_ input: AmbientInput) -> Bool {
        let current = generation()
        return state.withLock { s in
            if s.weatherRead || s.judgedGeneration != current || s.heldWeather.count >= Self.maximumHeldWeather { return true }
            s.heldWeather.append(input)
            return false
        }
    }

    /// The weather inputs held back, oldest first; the gate holds none after this.
    public func takeHeldWeather() -> [AmbientInput] {
        state.withLock { s in
            defer { s.heldWeather.removeAll(keepingCapacity: true) }
            return s.heldWeather
        }
    }

    /// The weather inputs held back now, oldest first (the gate keeps them).
    public var heldWeather: [AmbientInput] { state.withLock { $0.heldWeather } }

    /// The latest GPS state reported, held back or not.
    public var latest: GPSState? { state.withLock { $0.latest } }

    /// GPS states held back since the start.
    public var held: Int { state.withLock { $0.held } }

    /// The processor's pass at store generation `generation` found that its bottles read the GPS
    /// (`gpsRead`) and the weather (`weatherRead`), or that none does.
    public func judged(gpsRead: Bool, weatherRead: Bool, generation: UInt64?) {
        state.withLock { s in
            s.gpsRead = gpsRead
            s.weatherRead = weatherRead
            s.judgedGeneration = generation
        }
    }
}

extension AsyncStream<AmbientInput>.Continuation {
    /// Sends a weather input to the bottle processor, or leaves it with `gate` for the processor's
    /// next wake while no bottle reads the weather (``AmbientGate/admitWeather(_:)``).
    func yieldWeather(_ input: AmbientInput, through gate: AmbientGate?) {
        if gate?.admitWeather(input) ?? true { yield(input) }
    }
}
