import CDriftSys
import DriftSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Input lines with both-edge events, from ``GPIOChip/requestInput(offsets:consumer:bias:activeLow:)``.
///
/// Read levels with ``value()``/``values()`` and edges with ``events()``.
/// ``release()`` is idempotent, ends every event sequence, and also happens in
/// `deinit`; afterwards every call throws ``GPIOError/Kind/released``.
public final class GPIOInputRequest: Sendable {
    /// Name of the chip the lines belong to.
    public let chip: String
    /// The requested offsets, in request order.
    public let offsets: [UInt32]
    private let handle: any GPIORequestHandle
    private let descriptor: FileDescriptor
    /// Open readiness monitors (one per live event iterator), closed at release.
    private let state = Mutex(State())

    private struct State {
        var released = false
        var monitors: [UInt64: ReadinessMonitor] = [:]
    }

    init(handle: any GPIORequestHandle, chip: String) throws(GPIOError) {
        guard let descriptor = handle.eventDescriptor else {
            handle.release()
            throw GPIOError(errno: EINVAL, operation: "request input", chip: chip, line: GPIOChip.describe(handle.offsets))
        }
        self.handle = handle
        self.chip = chip
        self.offsets = handle.offsets
        self.descriptor = descriptor
    }

    deinit { release() }

    /// The logical value of the only requested line (active = `true`).
    ///
    /// - Throws: ``GPIOError/Kind/invalidArgument`` if more than one line was requested.
    public func value() throws(GPIOError) -> Bool {
        guard offsets.count == 1 else {
            throw GPIOError(errno: EINVAL, operation: "get value", chip: chip, line: GPIOChip.describe(offsets))
        }
        return try handle.getValues()[0]
    }

    /// Logical values of all requested lines, in request order.
    public func values() throws(GPIOError) -> [Bool] {
        try handle.getValues()
    }

    /// Edge events of the requested lines as they happen, oldest first.
    ///
    /// The sequence waits on the request's event descriptor without a thread
    /// of its own. It ends (returns `nil`) when the iterating task is cancelled
    /// or the request is released, and throws ``GPIOError/Kind/chipVanished``
    /// if the chip goes away. Iterate from one task; each iterator made by
    /// `makeAsyncIterator()` sees the events nobody else has read yet.
    public func events() -> GPIOEdgeEventSequence {
        GPIOEdgeEventSequence(request: self)
    }

    /// Releases the lines and ends every event sequence. Idempotent.
    ///
    /// Call it from ordinary code (e.g. a `defer` after the event loop), not
    /// from a cancellation handler of the task iterating ``events()``: it
    /// waits briefly for the readiness monitor, which may be resuming that
    /// task. Cancelling that task already ends its sequence.
    public func release() {
        let monitors = state.withLock { state -> [ReadinessMonitor] in
            guard !state.released else { return [] }
            state.released = true
            defer { state.monitors = [:] }
            return Array(state.monitors.values)
        }
        // Stop watching the descriptor before the handle closes it.
        for monitor in monitors { monitor.close() }
        handle.release()
    }

    // MARK: For GPIOEdgeEventSequence

    /// A new monitor on the event descriptor, or `nil` once released.
    func makeMonitor(for owner: UInt64) -> ReadinessMonitor? {
        state.withLock { state in
            guard !state.released else { return nil }
            let monitor = ReadinessMonitor(descriptor: descriptor, label: "drift.gpio.\(chip)")
            state.monitors[owner] = monitor
            return monitor
        }
    }

    /// Forgets (and closes) the monitor of an iterator that went away.
    func dropMonitor(for owner: UInt64) {
        state.withLock { state in state.monitors.removeValue(forKey: owner) }?.close()
    }

    /// Pending events (maybe none); `nil` once released.
    func readPendingEvents() throws(GPIOError) -> [GPIOEdgeEvent]? {
        do {
            return try handle.readEvents(maxCount: 64)
        } catch where error.kind == .released {
            return nil
        }
    }
}
