import CDriftSys
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One thread and one epoll instance that wake the waits of every ``ReadinessMonitor`` and
/// ``WritabilityMonitor`` in the process: the monitors' own event loop, in place of libdispatch's
/// read and write sources.
///
/// libdispatch's epoll backend on Linux is not safe for what the monitors do. After a hang-up
/// (`EPOLLHUP`: a serial device unplugged, the far end of a pty or socket closed) it deletes the
/// sources' shared bookkeeping for the descriptor (a "muxnote") on the sources' own queues, while
/// its manager thread may still be walking that very muxnote: a use after free in
/// `_dispatch_event_loop_drain`. It crashed the test process once (`make test`, 2026-12-06) and
/// crashes `tools/dispatch-hangup-race.swift` — plain read and write sources, cancelled and
/// waited for before every close — within minutes when freed memory is poisoned
/// (`scripts/repro-dispatch-hangup.sh`, [testing](../../docs/testing.md)). It also keys its
/// registrations by descriptor number and lost some after hang-ups (a source that never fires).
///
/// Here nothing the kernel hands back is a pointer. Each registration carries the descriptor
/// number and a tag that changes every time it is armed; an event whose tag is not the current
/// one (a registration left behind by a descriptor closed or replaced under it, kept alive by a
/// duplicate) is dropped and counted (``staleEvents``), never followed. Every registration is
/// one-shot (`EPOLLONESHOT`): an event disarms it, so a descriptor that stays ready (a hang-up
/// is reported for as long as it lasts) wakes each wait once and never spins. All bookkeeping
/// and every `epoll_ctl` happen under one lock, so when ``cancel(_:)`` returns the kernel no
/// longer watches the descriptor for that wait and — if it was the last — the owner may close
/// it. Wakes are called on the reactor's thread, outside the lock: they must only hand work on
/// (the monitors `async` onto their own queue).
///
/// The thread (`epoll`) starts with the first wait and lives as long as the process,
/// blocked in `epoll_wait` without a timeout: an idle box gains no wake-up.
public final class EpollReactor: Sendable {
    /// The reactor every monitor uses.
    public static let shared = EpollReactor(threadName: "epoll")

    /// What a wait waits for.
    public enum Direction: Sendable {
        /// Readable, at end of file, hung up or in error (what the next `read` reports).
        case readable
        /// Writable, hung up or in error (what the next `write` reports).
        case writable
    }

    /// One armed wait, for ``cancel(_:)``.
    public struct Registration: Sendable, Hashable {
        let descriptor: Int32
        let id: UInt64
    }

    public typealias Wake = @Sendable () -> Void

    private struct Waiter {
        let direction: Direction
        let wake: Wake
    }

    /// A descriptor some wait is registered for.
    private struct Entry {
        var waiters: [UInt64: Waiter] = [:]
        /// The tag the kernel's registration carries (with the descriptor number).
        var tag: UInt32 = 0
        /// The events registered (without `EPOLLONESHOT`); 0 before the first arming.
        var registered: UInt32 = 0

        var wanted: UInt32 {
            var events: UInt32 = 0
            for waiter in waiters.values {
                switch waiter.direction {
                case .readable: events |= DRIFT_EPOLLIN | DRIFT_EPOLLRDHUP
                case .writable: events |= DRIFT_EPOLLOUT
                }
            }
            return events
        }
    }

    private struct State {
        var entries: [Int32: Entry] = [:]
        var nextID: UInt64 = 0
        var nextTag: UInt32 = 0
        var staleEvents = 0
        var threadStarted = false
    }

    private let epoll: Int32
    private let threadName: String
    private let state = Mutex(State())

    /// A reactor of its own (tests); the monitors use ``shared``.
    public init(threadName: String) {
        let descriptor = drift_epoll_create()
        precondition(descriptor >= 0, "epoll_create1 failed: errno \(drift_errno())")
        self.epoll = descriptor
        self.threadName = threadName
    }

    /// Events the kernel delivered for a registration that is no longer current, dropped: a
    /// descriptor closed or replaced while a wait was armed on it (normally never), or a
    /// registration armed again by another wait between the kernel's report and its handling
    /// (level-triggered, so the report comes again while the descriptor stays ready).
    public var staleEvents: Int { state.withLock { $0.staleEvents } }

    /// Descriptors with at least one armed wait.
    public var watchedDescriptors: Int { state.withLock { $0.entries.count } }

    /// Arms a one-shot wait on `descriptor`; `wake` is called once, on the reactor's thread,
    /// when it is ready — or at once, on the calling thread, when the kernel cannot watch it (a
    /// regular file, a closed descriptor: the next `read` or `write` answers). Not called after
    /// ``cancel(_:)`` has returned `true`.
    public func register(_ descriptor: Int32, for direction: Direction, wake: @escaping Wake) -> Registration {
        let (registration, refused) = state.withLock { state -> (Registration, [Wake]) in
            if !state.threadStarted {
                state.threadStarted = true
                startThread()
            }
            state.nextID &+= 1
            let id = state.nextID
            var entry = state.entries[descriptor] ?? Entry()
            entry.waiters[id] = Waiter(direction: direction, wake: wake)
            let refused = arm(descriptor, entry, in: &state)
            return (Registration(descriptor: descriptor, id: id), refused)
        }
        for wake in refused { wake() }
        return registration
    }

    /// Disarms a wait. Returns `true` if it was still armed (its wake will not be called), `false`
    /// if it had fired already (its wake has been or is being called). When it returns, the kernel
    /// no longer watches the descriptor for this wait.
    @discardableResult
    public func cancel(_ registration: Registration) -> Bool {
        let (wasArmed, refused) = state.withLock { state -> (Bool, [Wake]) in
            guard var entry = state.entries[registration.descriptor],
                  entry.waiters.removeValue(forKey: registration.id) != nil else { return (false, []) }
            if entry.waiters.isEmpty || entry.wanted != entry.registered {
                return (true, arm(registration.descriptor, entry, in: &state))
            }
            state.entries[registration.descriptor] = entry
            return (true, [])
        }
        for wake in refused { wake() }
        return wasArmed
    }

    // MARK: - Under the lock

    /// Brings the kernel's registration of `descriptor` in line with `entry`'s waiters: deleted
    /// when none is left, otherwise armed (one-shot) with a new tag. Returns the wakes of waiters
    /// the kernel would not watch (their entry is dropped).
    private func arm(_ descriptor: Int32, _ entry: Entry, in state: inout State) -> [Wake] {
        var entry = entry
        if entry.waiters.isEmpty {
            if entry.registered != 0 {
                _ = drift_epoll_ctl(epoll, DRIFT_EPOLL_CTL_DEL, descriptor, 0, 0)
            }
            state.entries[descriptor] = nil
            return []
        }
        state.nextTag &+= 1
        entry.tag = state.nextTag
        let wanted = entry.wanted
        let data = UInt64(UInt32(bitPattern: descriptor)) << 32 | UInt64(entry.tag)
        let events = wanted | DRIFT_EPOLLONESHOT
        var result: Int32
        if entry.registered != 0 {
            result = drift_epoll_ctl(epoll, DRIFT_EPOLL_CTL_MOD, descriptor, events, data)
            // The descriptor was closed (or replaced) under the registration: register anew.
            if result < 0, drift_errno() == ENOENT {
                result = drift_epoll_ctl(epoll, DRIFT_EPOLL_CTL_ADD, descriptor, events, data)
            }
        } else {
            result = drift_epoll_ctl(epoll, DRIFT_EPOLL_CTL_ADD, descriptor, events, data)
            if result < 0, drift_errno() == EEXIST {
                result = drift_epoll_ctl(epoll, DRIFT_EPOLL_CTL_MOD, descriptor, events, data)
            }
        }
        guard result == 0 else {
            // Not pollable (EPERM: a regular file) or not open (EBADF): nothing will come, so every
            // wait on it ends now and the read or write that follows reports what is wrong.
            state.entries[descriptor] = nil
            return entry.waiters.values.map(\.wake)
        }
        entry.registered = wanted
        state.entries[descriptor] = entry
        return []
    }

    // MARK: - The reactor's thread

    private func startThread() {
        let thread = Thread { [self] in run() }
        thread.start()
    }

    private func run() -> Never {
        ThreadName.setCurrent(threadName)
        let capacity = 64
        var events = [UInt32](repeating: 0, count: capacity)
        var data = [UInt64](repeating: 0, count: capacity)
        while true {
            let count = drift_epoll_wait(epoll, &events, &data, Int32(capacity), -1)
            if count < 0 {
                let error = drift_errno()
                precondition(error == EINTR, "epoll_wait failed: errno \(error)")
                continue
            }
            for index in 0..<Int(count) {
                for wake in deliver(events[index], data: data[index]) { wake() }
            }
        }
    }

    /// The wakes an event ends, after re-arming the descriptor for the waits still armed.
    private func deliver(_ events: UInt32, data: UInt64) -> [Wake] {
        let descriptor = Int32(bitPattern: UInt32(truncatingIfNeeded: data >> 32))
        let tag = UInt32(truncatingIfNeeded: data)
        return state.withLock { state -> [Wake] in
            guard var entry = state.entries[descriptor], entry.registered != 0, entry.tag == tag else {
                // Armed before a descriptor under it was closed or replaced (one-shot, so it does
                // not come again), or armed again since with a new tag (then reported again).
                state.staleEvents += 1
                return []
            }
            let readable = events & (DRIFT_EPOLLIN | DRIFT_EPOLLRDHUP | DRIFT_EPOLLPRI | DRIFT_EPOLLHUP | DRIFT_EPOLLERR) != 0
            let writable = events & (DRIFT_EPOLLOUT | DRIFT_EPOLLHUP | DRIFT_EPOLLERR) != 0
            var woken: [Wake] = []
            for (id, waiter) in entry.waiters {
                let ready = switch waiter.direction {
                case .readable: readable
                case .writable: writable
                }
                if ready {
                    woken.append(waiter.wake)
                    entry.waiters[id] = nil
                }
            }
            // The event disarmed the registration (one-shot): arm it again for the waits left.
            return woken + arm(descriptor, entry, in: &state)
        }
    }
}
