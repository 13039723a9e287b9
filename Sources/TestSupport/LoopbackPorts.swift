import DriftSystem
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Loopback ports for servers a test starts (a `driftd` listener, a broker, a simulated radio):
/// each is handed out once per test process and lies below the kernel's ephemeral range.
///
/// A port found by binding port 0 and releasing it comes from the ephemeral range
/// (`/proc/sys/net/ipv4/ip_local_port_range`, 32768–60999 by default), the same range the
/// kernel takes every other test's outgoing connections and port-0 sockets from. With a
/// thousand tests running in parallel, one of those could take the port between its release
/// and the server's bind — and a readiness check that connects then reached a stranger (a
/// broker that never answers CONNECT, seen as a client that never connects). Ports from
/// 20000–32767 are never chosen by the kernel; within this process each is used once, and the
/// start is spread by process id so two test processes on one machine rarely meet. Every
/// candidate is checked free for both TCP and UDP before it is handed out.
public enum LoopbackPorts {
    static let range = 20_000..<32_768
    private static let next = Mutex<Int>(Int(getpid()) * 97 % (32_768 - 20_000))

    /// A port free for TCP and UDP on 127.0.0.1, never handed out before in this process.
    public static func take() throws -> Int {
        for _ in 0..<range.count {
            let port = next.withLock { offset -> Int in
                defer { offset = (offset + 1) % range.count }
                return range.lowerBound + offset
            }
            if isFree(port) { return port }
        }
        throw SystemError(operation: "free loopback port", errno: EADDRINUSE, subject: "127.0.0.1:\(range)")
    }

    /// `count` distinct ports (see ``take()``).
    public static func take(_ count: Int) throws -> [Int] {
        try (0..<count).map { _ in try take() }
    }

    /// Runs `bind` with a port from ``take()``, and with the next one while it fails because
    /// the port was taken after the check (`EADDRINUSE`; another process on the machine may
    /// bind any port at any time), at most `attempts` times in all. For a test that binds the
    /// port itself; a port handed to a child process cannot be retried this way.
    public static func binding<T>(attempts: Int = 5, _ bind: (Int) throws -> T) throws -> T {
        for _ in 1..<max(1, attempts) {
            do {
                return try bind(try take())
            } catch let error as SystemError where error.errno == EADDRINUSE {
                continue
            }
        }
        return try bind(try take())
    }

    private static func isFree(_ port: Int) -> Bool {
        guard let tcp = try? TCPSocket.listenLoopback(port: port) else { return false }
        try? tcp.socket.close()
        guard let udp = try? UDPSocket.bind(host: "127.0.0.1", port: port) else { return false }
        try? udp.socket.close()
        return true
    }
}
