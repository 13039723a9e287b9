import DriftSystem
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real Mosquitto broker for tests: `/usr/sbin/mosquitto -c <tmp conf>` on a free loopback
/// port (no persistence; anonymous plain TCP, or TLS and passwords with ``Security``),
/// stopped and restarted on demand (same port).
///
/// ``available`` is false when mosquitto is not installed (`scripts/install-deps.sh` installs
/// it); tests then skip with ``skipReason``.
public final class MosquittoBroker: @unchecked Sendable {
    public static let executable = "/usr/sbin/mosquitto"
    public static var available: Bool { FileManager.default.isExecutableFile(atPath: executable) }
    public static let skipReason = "mosquitto not installed (/usr/sbin/mosquitto; scripts/install-deps.sh installs it)"

    public let port: Int
    public let directory: TemporaryDirectory
    private var process: ChildProcess?
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
        // Started as root, mosquitto drops to its own user: it must be able to enter this folder.
        chmod(directory.path, 0o755)
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
            chmod(passwords, 0o644)
            conf += "password_file \(passwords)\n"
        }
        try conf.write(toFile: directory.appending("mosquitto.conf"), atomically: true, encoding: .utf8)
        try await start()
    }

    /// Starts (again) on the same port; returns when it accepts a TCP connection.
    public func start() async throws {
        // A clean signal mask and default dispositions (ChildProcess): the test process blocks
        // signals for its own reasons, and the broker must not inherit that.
        let process = try ChildProcess(executable: Self.executable, arguments: ["-c", directory.appending("mosquitto.conf")])
        lock.withLock { self.process = process }
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

    /// Stops the broker (SIGKILL) and waits for it to exit.
    public func stop() async {
        guard let process = lock.withLock({ () -> ChildProcess? in defer { self.process = nil }; return self.process }) else { return }
        // SIGKILL: a killed broker is the harsher restart (no clean disconnects, no persistence).
        process.send(SIGKILL)
        _ = try? await runBlocking { process.waitUntilExit() }
    }

    /// The broker's log (errors, warnings, notices).
    public var log: String { (try? String(contentsOfFile: directory.appending("broker.log"), encoding: .utf8)) ?? "" }

    deinit {
        if let process {
            process.send(SIGKILL)
            _ = process.waitUntilExit()
        }
        directory.remove()
    }

    public struct BrokerError: Error, CustomStringConvertible {
        public var description: String
    }
}
