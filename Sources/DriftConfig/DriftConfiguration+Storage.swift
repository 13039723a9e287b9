extension DriftConfiguration {
    /// `[storage]`: the data partition.
    public struct Storage: Sendable, Equatable {
        /// Database, media, keys, the control socket and the last known good config live here.
        /// Relative paths are relative to the process's working directory.
        public var dataDir: String
        /// Refuse new uploads when less than this many MiB are free.
        public var minFreeMB: Int

        init(reading r: SectionReader) {
            dataDir = r.string("data_dir", check: ConfigChecks.path)
            minFreeMB = r.int("min_free_mb", default: 64, min: 1)
        }
    }

    /// `[http]`: the visitor page and API.
    public struct HTTP: Sendable, Equatable {
        public var listen: HostPort
        /// Rate limits per client address (new tokens, drops, open attempts, chat lines).
        /// Off only for load tests from one machine; per-token limits always apply.
        public var limitPerClient: Bool

        init(reading r: SectionReader) {
            listen = r.hostPort("listen")
            limitPerClient = r.bool("limit_per_client", default: true)
        }
    }

    /// `[bottles]`: how long an opened bottle's chat lives (ARCHITECTURE §3: 1 h lifespan,
    /// 30 s countdown). Shorter values suit demonstrations and tests.
    public struct Bottles: Sendable, Equatable {
        /// After the first open, the chat lives this long past the last moment someone was inside.
        public var chatLifespan: Int
        /// When the last participant leaves, the chat dies after this countdown unless rescued.
        public var chatCountdown: Int

        init(reading r: SectionReader) {
            chatLifespan = r.int("chat_lifespan_s", default: 3600, min: 60, max: 86_400)
            chatCountdown = r.int("chat_countdown_s", default: 30, min: 5, max: 3600)
        }
    }

    /// `[control]`: the local control socket used by `driftd ctl` and `driftd status`.
    public struct Control: Sendable, Equatable {
        /// Unix socket path; `""` means `<data_dir>/driftd.sock` (see ``DriftConfiguration/controlSocketPath``).
        public var socket: String

        init(reading r: SectionReader) {
            socket = r.string("socket", default: "") { path in
                // sockaddr_un.sun_path holds 108 bytes including the terminating NUL.
                path.utf8.count > 107
                    ? ValueProblem("a Unix socket path has at most 107 bytes, found \(path.utf8.count)") : nil
            }
        }
    }

    /// `[daemon]`: logging, shutdown and watchdog.
    public struct Daemon: Sendable, Equatable {
        public var logLevel: LogLevel
        /// Graceful shutdown budget; kept below systemd's `TimeoutStopSec=90`.
        public var shutdownTimeout: Duration
        /// Send systemd watchdog keep-alives while healthy.
        public var watchdog: Bool
        /// Give back memory once the box has settled, and after a busy spell (the start-up
        /// code's mapped pages, glibc's free heap; docs/performance.md, "Giving memory back").
        /// `nil` (left out): on in the beacon power profile only (``DriftConfiguration/trimsMemory``).
        public var trimMemory: Bool?

        init(reading r: SectionReader) {
            logLevel = r.choice("log_level", default: .info)
            shutdownTimeout = .seconds(r.int("shutdown_timeout_s", default: 10, min: 1, max: 85))
            watchdog = r.bool("watchdog", default: true)
            trimMemory = r.optionalBool("trim_memory")
        }
    }

    /// `[features]`: switches for optional parts.
    public struct Features: Sendable, Equatable {
        public var visitorPage: Bool
        public var mesh: Bool
        public var metrics: Bool

        init(reading r: SectionReader) {
            visitorPage = r.bool("visitor_page", default: true)
            mesh = r.bool("mesh", default: true)
            metrics = r.bool("metrics", default: false)
        }
    }

    /// `[metrics]`: the Prometheus endpoint (only when `features.metrics` is on).
    public struct Metrics: Sendable, Equatable {
        public var listen: HostPort

        init(reading r: SectionReader) {
            listen = r.hostPort("listen", default: "127.0.0.1:9101")
        }
    }
}
