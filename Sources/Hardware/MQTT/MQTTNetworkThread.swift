import CMosquitto
import DriftSystem
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The ``MQTTClient``'s network thread: one thread of its own, started by ``start()`` and
/// joined by ``stop(lastWords:)``, that connects, moves libmosquitto's socket with `poll(2)`,
/// and connects again with capped exponential back-off when a connection ends.
///
/// Why not libmosquitto's own thread (`mosquitto_loop_start`, which runs
/// `mosquitto_loop_forever`): its loop waits in `select(2)` (`mosquitto_loop`), and a socket or
/// wake-up descriptor numbered 1024 (`FD_SETSIZE`) or above makes `mosquitto_loop` return
/// `MOSQ_ERR_INVAL`, which `mosquitto_loop_forever` treats as fatal: the thread ends, with no
/// callback and no log line, and the client never connects nor says why. A process with many
/// descriptors (the test suite holds over 1 100 at times, a busy box holds its visitors'
/// sockets) hits that at random. The same loop also ends for good on the first TLS handshake
/// that fails, so a box with a wrong `ca_file` stopped trying. This thread uses
/// libmosquitto's external-loop calls instead (`mosquitto_socket`, `mosquitto_want_write`,
/// `mosquitto_loop_read`/`_write`/`_misc`, with `mosquitto_threaded_set`), which have no
/// descriptor limit, and owns the reconnecting: every attempt is `mosquitto_connect_async`
/// (non-blocking, so a stop never waits for a TCP connect to time out) made on this thread,
/// so no other thread ever races it.
final class MQTTNetworkThread: Sendable {
    struct Settings: Sendable {
        var host: String
        var port: Int
        var keepalive: Int
        /// Back-off between attempts: the first delay and the cap (doubling).
        var delay: Duration
        var delayMax: Duration
        /// How long a stop waits for the last words and the DISCONNECT to leave.
        var closeLimit: Duration = .seconds(2)
    }

    private struct Control {
        /// The thread, until a stop takes it to join it.
        var thread: pthread_t?
        var started = false
        var finished = false
        var stopRequested = false
        var lastWords: MQTTMessage?
        /// Stops waiting for the thread to finish.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let mosq: MQTTClient.Handle
    private let context: MQTTClient.Context
    private let settings: Settings
    private let wakeRead: FileDescriptor
    private let wakeWrite: FileDescriptor
    private let control = Mutex(Control())

    init(mosq: MQTTClient.Handle, context: MQTTClient.Context, settings: Settings) throws(SystemError) {
        self.mosq = mosq
        self.context = context
        self.settings = settings
        (wakeRead, wakeWrite) = try FileDescriptor.pipe()
        try wakeRead.setNonBlocking()
        try wakeWrite.setNonBlocking()
    }

    deinit {
        try? wakeRead.close()
        try? wakeWrite.close()
    }

    /// Starts the thread (once).
    func start() throws(SystemError) {
        let failure = control.withLock { control -> Int32 in
            guard !control.started, !control.stopRequested else { return 0 }
            var thread = pthread_t()
            let box = Unmanaged.passRetained(self).toOpaque()
            let rc = pthread_create(&thread, nil, { argument in
                let this = Unmanaged<MQTTNetworkThread>.fromOpaque(argument!).takeRetainedValue()
                this.run()
                return nil
            }, box)
            guard rc == 0 else {
                Unmanaged<MQTTNetworkThread>.fromOpaque(box).release()
                return rc
            }
            control.thread = thread
            control.started = true
            return 0
        }
        if failure != 0 { throw SystemError(operation: "pthread_create", errno: failure, subject: "mqtt") }
    }

    /// Wakes the thread so it looks at libmosquitto's queue again (after a publish from elsewhere).
    func wake() {
        var byte: UInt8 = 1
        // A full pipe already holds a wake-up; nothing else can fail on a valid pipe.
        _ = try? withUnsafeBytes(of: &byte) { try wakeWrite.write($0) }
    }

    /// Asks the thread to say `lastWords` (when connected), disconnect and end, and joins it.
    /// Blocks the calling thread for at most ``Settings/closeLimit`` plus one attempt's set-up.
    func stop(lastWords: MQTTMessage?) {
        guard let thread = requestStop(lastWords: lastWords) else { return }
        pthread_join(thread, nil)
    }

    /// ``stop(lastWords:)`` without holding a thread while the network thread finishes: it is
    /// joined once it has (at once).
    func stop(lastWords: MQTTMessage?) async {
        let thread = requestStop(lastWords: lastWords)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = control.withLock { control -> Bool in
                if control.finished || !control.started { return true }
                control.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
        if let thread { pthread_join(thread, nil) }
    }

    /// Marks the stop, wakes the thread, and hands the thread to join to the first caller.
    private func requestStop(lastWords: MQTTMessage?) -> pthread_t? {
        let thread = control.withLock { control -> pthread_t? in
            if !control.stopRequested { control.lastWords = lastWords }
            control.stopRequested = true
            defer { control.thread = nil }
            return control.thread
        }
        wake()
        return thread
    }

    private var stopRequested: Bool { control.withLock { $0.stopRequested } }

    // MARK: On the thread

    private func run() {
        // The OS thread's name, for `top -H` and core dumps.
        Thread.current.name = "mqtt"
        ThreadName.setCurrent("mqtt")
        var delay = settings.delay
        while !stopRequested {
            context.accepted.withLock { $0 = false }
            let rc = mosquitto_connect_async(mosq.pointer, settings.host, Int32(settings.port), Int32(settings.keepalive))
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                serve()
            } else if !report(rc, during: "connect") {
                // Refused or unreachable at once: the news a connection that fails later brings.
                context.continuation.yield(.disconnected(reason: rc))
            }
            if stopRequested { break }
            // A connection the broker accepted starts the back-off again from the first delay.
            if context.accepted.withLock({ $0 }) { delay = settings.delay }
            waitForWake(upTo: delay)
            delay = min(delay * 2, settings.delayMax)
        }
        let waiters = control.withLock { control -> [CheckedContinuation<Void, Never>] in
            control.finished = true
            defer { control.waiters = [] }
            return control.waiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Runs one connection until libmosquitto closes its socket (the connection ended, was
    /// refused, or timed out), or until a stop has said goodbye (or ran out of time).
    private func serve() {
        var closingBy: ContinuousClock.Instant?
        var throttled = false
        while true {
            let socket = mosquitto_socket(mosq.pointer)
            guard socket >= 0 else { return }
            if closingBy == nil, stopRequested {
                if context.accepted.withLock({ $0 }), let words = control.withLock({ $0.lastWords }) {
                    _ = words.payload.withUnsafeBytes { raw in
                        mosquitto_publish(mosq.pointer, nil, words.topic, Int32(raw.count), raw.baseAddress, Int32(words.qos), words.retain)
                    }
                }
                // Queues DISCONNECT after everything else; writing it closes the socket.
                mosquitto_disconnect(mosq.pointer)
                closingBy = .now + settings.closeLimit
            }
            // Out of time: the socket is left to `mosquitto_destroy`.
            if let closingBy, ContinuousClock.now >= closingBy { return }

            var fds = [
                pollfd(fd: wakeRead.rawValue, events: Int16(POLLIN), revents: 0),
                pollfd(fd: socket, events: Int16(POLLIN) | (mosquitto_want_write(mosq.pointer) ? Int16(POLLOUT) : 0), revents: 0),
            ]
            // At most a second: `mosquitto_loop_misc` sends PINGREQs and ends a connection whose
            // broker went silent, on whole seconds. A throttled round leaves the socket out.
            // An interrupted poll (EINTR) is simply another round.
            _ = poll(&fds, throttled ? 1 : 2, throttled ? 100 : 1_000)
            if fds[0].revents != 0 { drainWakes() }
            throttled = false
            let events = fds[1].revents
            if events != 0 {
                // Reading on write readiness too: libmosquitto 2.0.11 moves a TLS handshake on
                // only in `mosquitto_loop_read`. Reading a socket with nothing to read is harmless.
                report(mosquitto_loop_read(mosq.pointer, 1), during: "read")
                if mosquitto_socket(mosq.pointer) >= 0 {
                    report(mosquitto_loop_write(mosq.pointer, 1), during: "write")
                }
                // A failed socket that libmosquitto keeps (2.0.11, a TLS handshake that hit a
                // system error) is ready at once, every time: look at it ten times a second
                // until the keepalive check in `mosquitto_loop_misc` closes it.
                if events & Int16(POLLERR | POLLHUP | POLLNVAL) != 0, mosquitto_socket(mosq.pointer) == socket {
                    throttled = true
                }
            }
            report(mosquitto_loop_misc(mosq.pointer), during: "keepalive")
        }
    }

    private func waitForWake(upTo duration: Duration) {
        var entry = pollfd(fd: wakeRead.rawValue, events: Int16(POLLIN), revents: 0)
        let milliseconds = duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
        _ = poll(&entry, 1, Int32(clamping: milliseconds))
        drainWakes()
    }

    private func drainWakes() {
        var buffer = [UInt8](repeating: 0, count: 64)
        while let count = try? buffer.withUnsafeMutableBytes({ try wakeRead.read(into: $0) }), count > 0 {}
    }

    /// Turns a result that would otherwise go unseen into ``MQTTEvent/problem(_:)``. A broker
    /// that is down or went away, a refusal (already ``MQTTEvent/refused(reason:)``) and a TLS
    /// failure (libmosquitto logs its reasons, which arrive as problems) are not reported again.
    /// Returns whether it reported.
    @discardableResult
    private func report(_ rc: Int32, during operation: String) -> Bool {
        let ordinary: [mosq_err_t] = [MOSQ_ERR_SUCCESS, MOSQ_ERR_NO_CONN, MOSQ_ERR_CONN_LOST, MOSQ_ERR_CONN_PENDING, MOSQ_ERR_ERRNO,
                                      MOSQ_ERR_KEEPALIVE, MOSQ_ERR_CONN_REFUSED, MOSQ_ERR_TLS]
        guard !ordinary.contains(where: { $0.rawValue == rc }) else { return false }
        let reason = rc == MOSQ_ERR_EAI.rawValue
            ? "the broker's address \(settings.host) cannot be resolved: \(String(cString: gai_strerror(Syscall.errno)))"
            : String(cString: mosquitto_strerror(rc))
        context.continuation.yield(.problem("mqtt \(operation): \(reason)"))
        return true
    }
}
