import DriftSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real Mosquitto broker for tests: `/usr/sbin/mosquitto -c <tmp conf>` on a free loopback
/// port (no persistence; anonymous plain TCP, or TLS and passwords with ``Security``),
/// stopped and restarted on demand (same port).
///
/// The broker dies with the test process, however that ends (SIGKILL included): it is started
/// through util-linux's `setpriv --pdeathsig TERM`, which sets `PR_SET_PDEATHSIG` in the child
/// before it runs mosquitto (`posix_spawn` cannot). The kernel sends that signal when the
/// *thread* that started the child ends, so each broker is started from a thread of its own
/// that waits for it (`waitpid`) and ends only after it: with the process, or after ``stop()``.
/// Run as root, the broker is told `user root`: dropping to the `mosquitto` user would clear
/// the parent-death signal.
///
/// ``available`` is false when mosquitto is not installed (`scripts/install-deps.sh` installs
/// it); tests then skip with ``skipReason``.
public final class MosquittoBroker: @unchecked Sendable {
    public static let executable = "/usr/sbin/mosquitto"
    public static var available: Bool { FileManager.default.isExecutableFile(atPath: executable) }
    public static let skipReason = "mosquitto not installed (/usr/sbin/mosquitto; scripts/install-deps.sh installs it)"

    public static let setpriv = "/usr/bin/setpriv"

    public let port: Int
    public let directory: TemporaryDirectory
    /// The running broker and the task whose thread started it and waits for it.
    private var run: (process: ChildProcess, watcher: Task<Void, Never>)?
    private let lock = NSLock()

    /// How the listener admits clients (the default: plain TCP, anonymous).
    public struct Security: Sendable {
        /// TLS with these certificates (the broker's from ``TestCertificates``); `nil`: plain TCP.
        public var certificates: TestCertificates?
        /// With TLS: clients must present a certificate signed by the test CA.
        public var requireCertificate: Bool
        /// Username → password; when not empty, anonymous clients are refused.
        public var users: [String: String]

        public init(certificates: TestCertificates? = nil, requireCertificate: Bool = false, users: [String: String] = [:]) {
            self.certificates = certificates
            self.requireCertificate = requireCertificate
            self.users = users
        }
    }

    /// Starts the broker on a free loopback port and waits until it accepts connections.
    public init(security: Security = Security()) async throws {
        directory = try TemporaryDirectory(prefix: "mosquitto")
        port = try LoopbackHTTP.freePort()
        var conf = """
            listener \(port) 127.0.0.1
            allow_anonymous \(security.users.isEmpty)
            persistence false
            max_inflight_messages 0
            max_queued_messages 100000
            log_dest file \(directory.appending("broker.log"))
            log_type error
            log_type warning
            log_type notice
            \(geteuid() == 0 ? "user root" : "")

            """
        if let certificates = security.certificates {
            conf += """
                cafile \(certificates.caFile)
                certfile \(certificates.serverCertFile)
                keyfile \(certificates.serverKeyFile)
                require_certificate \(security.requireCertificate)

                """
        }
        if !security.users.isEmpty {
            let passwords = directory.appending("passwords")
            // A tool run: on a thread made for blocking, never the cooperative pool.
            let users = security.users.sorted(by: { $0.key < $1.key })
            try await runBlocking {
                for (index, (user, password)) in users.enumerated() {
                    try runTool("/usr/bin/mosquitto_passwd", (index == 0 ? ["-c"] : []) + ["-b", passwords, user, password])
                }
            }
            conf += "password_file \(passwords)\n"
        }
        try conf.write(toFile: directory.appending("mosquitto.conf"), atomically: true, encoding: .utf8)
        try await start()
    }

    /// Starts (again) on the same port; returns when it accepts a TCP connection.
    public func start() async throws {
        let process = try await Self.launch(Self.executable, arguments: ["-c", directory.appending("mosquitto.conf")])
        lock.withLock { self.run = process }
        let port = self.port
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let socket = try? await runBlocking({ try TCPSocket.connect(host: "127.0.0.1", port: port, timeoutMilliseconds: 1_000) }) {
                try? socket.close()
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BrokerError(description: "mosquitto did not listen on 127.0.0.1:\(port) within 30 s")
    }

    /// Starts `executable arguments…` with the parent-death signal SIGTERM (through `setpriv`
    /// when it is installed) from a thread of its own that then waits for it (and reaps it);
    /// returns the process and the task that ends when that thread has.
    static func launch(_ executable: String, arguments: [String]) async throws -> (process: ChildProcess, watcher: Task<Void, Never>) {
        let (spawned, handOver) = AsyncStream.makeStream(of: Result<ChildProcess, SystemError>.self)
        let watcher = Task {
            // A tool run on a thread made for blocking: it lives exactly as long as the child.
            _ = try? await runBlocking {
                let result = Result { () throws(SystemError) -> ChildProcess in
                    // A clean signal mask and default dispositions (ChildProcess): the test
                    // process blocks signals for its own reasons, and the broker must not inherit that.
                    let command = diesWithParent(executable, arguments)
                    return try ChildProcess(executable: command.executable, arguments: command.arguments)
                }
                handOver.yield(result)
                handOver.finish()
                if case .success(let process) = result { _ = process.waitUntilExit() }
            }
        }
        var results = spawned.makeAsyncIterator()
        guard let result = await results.next() else { throw BrokerError(description: "\(executable) was not started") }
        return (try result.get(), watcher)
    }

    /// `executable arguments…` run so that it gets SIGTERM when the thread that starts it ends:
    /// through `setpriv --pdeathsig TERM` (util-linux), or as it is where that is missing.
    public static func diesWithParent(_ executable: String, _ arguments: [String]) -> (executable: String, arguments: [String]) {
        guard FileManager.default.isExecutableFile(atPath: setpriv) else { return (executable, arguments) }
        return (setpriv, ["--pdeathsig", "TERM", "--", executable] + arguments)
    }

    /// Stops the broker (SIGKILL) and waits for it to exit and for the thread that waited for it.
    public func stop() async {
        guard let run = lock.withLock({ () -> (process: ChildProcess, watcher: Task<Void, Never>)? in
            defer { self.run = nil }
            return self.run
        }) else { return }
        // SIGKILL: a killed broker is the harsher restart (no clean disconnects, no persistence).
        run.process.send(SIGKILL)
        await run.watcher.value
    }

    /// The broker's log (errors, warnings, notices).
    public var log: String { (try? String(contentsOfFile: directory.appending("broker.log"), encoding: .utf8)) ?? "" }

    deinit {
        // Its watcher thread reaps it and ends.
        run?.process.send(SIGKILL)
        directory.remove()
    }

    public struct BrokerError: Error, CustomStringConvertible {
        public var description: String
    }
}
