import Metrics
import Synchronization

/// Who is inside the visitor server: open connections in all and per client address, and
/// live sockets per address, each bounded (``Limits``).
///
/// A phone at the box opens a few connections (a browser keeps about six per host, plus the
/// page's live sockets); a festival crowd is hundreds of phones, each on its own address on
/// the box's access point. What is bounded here is what one client, or all of them, can hold:
/// a connection beyond its address's cap is answered `429` and closed at once
/// (``DoorGuard``), a live socket beyond the per-address cap is refused `429` before the
/// upgrade, so a hostile client can never take the descriptors the control socket, the store
/// and the radio need.
///
/// When every place is taken, a new connection is not simply turned away: the connection
/// that has waited longest without sending a whole request header (a client that connected
/// and said nothing, or trickles a header) is closed to make room (`evicted`). Idle sockets
/// from many addresses therefore cannot lock out a visitor who asks for something; only
/// when every connection is busy with a real request is a newcomer answered `503`.
///
/// The global cap is lowered at start to fit the process's descriptor limit
/// (``fitting(descriptorLimit:)``). Per-address caps follow `[http] limit_per_client`
/// (off for load tests that share one address); the global cap always holds.
public final class VisitorDoor: Sendable {
    /// The door's bounds and deadlines. The defaults suit a box; tests tighten them.
    public struct Limits: Sendable, Equatable {
        /// Open connections at once, all clients together.
        public var connections = 1024
        /// Open connections at once from one address.
        public var connectionsPerClient = 32
        /// Live sockets (WebSockets) at once from one address.
        public var liveSocketsPerClient = 8
        /// A connection must deliver its first request's header within this.
        public var headerTimeout: Duration = .seconds(10)
        /// A keep-alive connection with no request in progress is closed after this, and so is
        /// a request whose body stops arriving for this long.
        public var idleTimeout: Duration = .seconds(30)
        /// A request (header and body) must arrive whole within this of its header (a 3 MiB
        /// photo over a slow access point fits).
        public var requestTimeout: Duration = .seconds(180)
        /// Live sockets are pinged this often; one that has not answered the previous ping by
        /// the next is closed.
        public var livePingInterval: Duration = .seconds(20)

        public init() {}

        /// The limits with the global cap lowered to leave `reserve` of `descriptorLimit`
        /// for everything else the daemon opens (store, WAL, media, radio, serial ports,
        /// the control socket, NIO's event loops — about 35 on the simulated board, more while
        /// readers and media files are open): at least 64 and at most 256, an eighth of the
        /// limit between.
        public func fitting(descriptorLimit: Int) -> Limits {
            var copy = self
            let reserve = min(256, max(64, descriptorLimit / 8))
            copy.connections = max(1, min(connections, descriptorLimit - reserve))
            copy.connectionsPerClient = min(connectionsPerClient, copy.connections)
            return copy
        }
    }

    /// A connection's place in the door, from ``enter(client:evict:)``.
    public struct Ticket: Sendable, Hashable {
        let number: UInt64
        let client: String
    }

    /// Why a connection or a live socket was turned away.
    public enum Refusal: String, Sendable, Error {
        /// The global connection cap.
        case full
        /// The per-address connection cap.
        case client
        /// The per-address live socket cap.
        case live
    }

    /// Counts for `status`, metrics and tests.
    public struct Snapshot: Sendable, Equatable {
        public var connections = 0
        public var liveSockets = 0
        public var refused: [String: Int] = [:]
        /// Connections closed by a deadline, by which one (`header`, `request`).
        public var timedOut: [String: Int] = [:]
        /// Connections still without a whole header closed to make room for a newcomer.
        public var evicted = 0
    }

    private struct State {
        var next: UInt64 = 0
        /// Admitted connections that have not sent a whole header yet, by admission order,
        /// with what closes each.
        var waiting: [UInt64: @Sendable () -> Void] = [:]
        var evicted = 0
        var connections = 0
        var perClient: [String: Int] = [:]
        var live: [String: Int] = [:]
        var liveTotal = 0
        var refused: [String: Int] = [:]
        var timedOut: [String: Int] = [:]
    }

    public let limits: Limits
    /// Whether the per-address caps apply.
    public let perClient: Bool
    private let state = Mutex(State())

    public init(limits: Limits = Limits(), perClient: Bool = true) {
        self.limits = limits
        self.perClient = perClient
    }

    /// Admits a new connection from `client` (its address), or says why not. `evict` closes
    /// this connection should its place be needed while it still waits for its header
    /// (it may be called from any thread). An admitted connection must ``leave(_:)``
    /// exactly once, and says ``headArrived(_:)`` when its first header is whole.
    public func enter(client: String, evict: @escaping @Sendable () -> Void) -> Result<Ticket, Refusal> {
        let (result, victim): (Result<Ticket, Refusal>, (@Sendable () -> Void)?) = state.withLock { state in
            if perClient, state.perClient[client, default: 0] >= limits.connectionsPerClient { return (.failure(.client), nil) }
            var victim: (@Sendable () -> Void)?
            if state.connections >= limits.connections {
                guard let oldest = state.waiting.keys.min() else { return (.failure(.full), nil) }
                victim = state.waiting.removeValue(forKey: oldest)
                state.evicted += 1
            }
            state.next += 1
            let ticket = Ticket(number: state.next, client: client)
            state.waiting[ticket.number] = evict
            state.connections += 1
            state.perClient[client, default: 0] += 1
            return (.success(ticket), victim)
        }
        if let victim {
            victim()
            Metrics.Counter(label: "driftd_http_evicted_total").increment()
        }
        if case .failure(let refusal) = result { count(refusal) }
        return result
    }

    /// The connection's first request header is whole: it is no longer evicted for a newcomer.
    public func headArrived(_ ticket: Ticket) {
        _ = state.withLock { $0.waiting.removeValue(forKey: ticket.number) }
    }

    /// A connection admitted by ``enter(client:evict:)`` has closed.
    public func leave(_ ticket: Ticket) {
        state.withLock { state in
            state.waiting[ticket.number] = nil
            state.connections -= 1
            let left = state.perClient[ticket.client, default: 1] - 1
            state.perClient[ticket.client] = left > 0 ? left : nil
        }
    }

    /// Takes a live socket slot for `client`; `false` when it holds as many as it may.
    /// A slot taken must be given back with ``closeLive(client:)``.
    public func openLive(client: String) -> Bool {
        let admitted = state.withLock { state in
            if perClient, state.live[client, default: 0] >= limits.liveSocketsPerClient { return false }
            state.live[client, default: 0] += 1
            state.liveTotal += 1
            return true
        }
        if !admitted { count(.live) }
        return admitted
    }

    /// Gives back a live socket slot.
    public func closeLive(client: String) {
        state.withLock { state in
            state.liveTotal -= 1
            let left = state.live[client, default: 1] - 1
            state.live[client] = left > 0 ? left : nil
        }
    }

    /// A connection was closed because it missed `deadline` (`header`, `request`).
    func timedOut(_ deadline: String) {
        state.withLock { $0.timedOut[deadline, default: 0] += 1 }
        Metrics.Counter(label: "driftd_http_timeouts_total", dimensions: [("deadline", deadline)]).increment()
    }

    public var snapshot: Snapshot {
        state.withLock { state in
            Snapshot(connections: state.connections, liveSockets: state.liveTotal, refused: state.refused, timedOut: state.timedOut,
                     evicted: state.evicted)
        }
    }

    private func count(_ refusal: Refusal) {
        state.withLock { $0.refused[refusal.rawValue, default: 0] += 1 }
        Metrics.Counter(label: "driftd_http_refused_total", dimensions: [("reason", refusal.rawValue)]).increment()
    }
}
