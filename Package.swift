// swift-tools-version:6.1
//
// Drift Box firmware. Targets are layered: C modules → one syscall layer →
// hardware access → domain → daemon → the `driftd` executable. Arrows only
// point down; `DriftCore` does no I/O at all.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "DriftBox",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "driftd", targets: ["driftd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
        // Without its default "ConfigurationSupport" trait, whose swift-configuration module
        // (Hummingbird's settings read from a ConfigReader) driftd does not use and every clean
        // build compiled.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.0", traits: ["FullFoundation"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        // Hummingbird's own: named here because the visitor API imports their modules
        // (HTTP types, the HTTP/1 ↔ HTTP types handlers), and an undeclared import can leave a
        // warm build stale (scripts/check-imports.py).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.1.0"),
    ],
    targets: [
        // MARK: C modules

        /// One stable GPIO interface over libgpiod v1 (Debian 12) and v2 (Debian 13).
        .target(
            name: "CGPIOD",
            linkerSettings: [.linkedLibrary("gpiod")]
        ),
        /// libserialport, the design's library for real UARTs and USB CDC devices.
        .systemLibrary(
            name: "CSerialPort",
            pkgConfig: "libserialport",
            providers: [.apt(["libserialport-dev"])]
        ),
        /// libmosquitto, the MQTT client of gateway boxes (`docs/mqtt.md`).
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        /// Thin `static inline` wrappers for ioctls, termios and other macros Swift cannot import.
        .target(name: "CDriftSys"),

        // MARK: Syscall layer and hardware

        /// The one place where Swift calls into libc: EINTR retries, errno → typed errors.
        .target(
            name: "DriftSystem",
            dependencies: ["CDriftSys"],
            swiftSettings: swiftSettings
        ),
        /// GPIO, serial ports, I2C, sd_notify: real implementations and simulated ones.
        .target(
            name: "Hardware",
            dependencies: [
                "DriftSystem", "CGPIOD", "CSerialPort", "CDriftSys", "CMosquitto",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        /// Weather sensors: BME280 over I2C, tipping-bucket rain gauge, DS18B20 on 1-Wire.
        .target(
            name: "Sensors",
            dependencies: ["Hardware"],
            swiftSettings: swiftSettings
        ),

        // MARK: Configuration and domain

        /// `driftd.toml` and board profiles: loading, merging, validation with line numbers.
        .target(
            name: "DriftConfig",
            dependencies: ["DriftCore", "DriftMesh"],
            swiftSettings: swiftSettings
        ),
        /// Pure domain: bottles, conditions, lifecycle, chat survival, geo, solar. No I/O.
        .target(
            name: "DriftCore",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        /// NMEA 0183 framing, sentence parsing and gpsd-compatible epoch assembly. Pure Swift, no I/O.
        .target(
            name: "GNSS",
            swiftSettings: swiftSettings
        ),
        /// Media checked by content: image headers (JPEG, PNG, WebP) and audio durations
        /// read from the container (WebM/Matroska, MP4, Ogg). Pure Swift, no I/O.
        .target(
            name: "DriftMedia",
            dependencies: ["DriftCore"],
            swiftSettings: swiftSettings
        ),
        /// The LoRa mesh, pure: wire format and sealing, fragments, routing decisions,
        /// store-and-forward schedules and reconciliation, airtime and duty-cycle budgets. No I/O.
        .target(
            name: "DriftMesh",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        /// `driftd sim mesh`: a deterministic discrete-event LoRa mesh simulation running our
        /// router and a re-implementation of Meshtastic's managed flooding side by side.
        .target(
            name: "DriftMeshSim",
            dependencies: ["DriftMesh"],
            swiftSettings: swiftSettings
        ),
        /// SQLite through GRDB: schema, migrations, repositories, media files, erase.
        .target(
            name: "DriftStore",
            dependencies: [
                "DriftCore", "DriftSystem", "DriftMesh",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Daemon and executable

        /// Wires services into one ServiceGroup; board profile → devices.
        .target(
            name: "DriftDaemon",
            dependencies: [
                "Hardware", "DriftConfig", "DriftCore", "DriftStore", "DriftSystem", "Sensors", "GNSS", "DriftMedia", "DriftMesh", "CDriftSys",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["PageAssetsPlugin"]
        ),
        .executableTarget(
            name: "driftd",
            dependencies: [
                "DriftDaemon", "DriftConfig", "Hardware", "DriftStore", "DriftCore", "CGPIOD", "GNSS", "DriftMesh", "DriftMeshSim", "DriftSystem",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            plugins: ["BuildInfoPlugin"]
        ),
        /// Writes version, git commit and build date into the `driftd` target.
        .plugin(name: "BuildInfoPlugin", capability: .buildTool()),
        /// Embeds the visitor page (`web/`) and `api/openapi.json` into `DriftDaemon`.
        .plugin(name: "PageAssetsPlugin", capability: .buildTool()),

        // MARK: Tests

        /// Fakes and helpers shared by the test targets (manual clock, temp dirs, pty pairs).
        .target(
            name: "TestSupport",
            dependencies: ["DriftSystem", "Hardware", "CDriftSys"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "DriftSystemTests", dependencies: ["DriftSystem", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "HardwareTests", dependencies: ["Hardware", "TestSupport", "CDriftSys", "DriftSystem",
                                                          .product(name: "Logging", package: "swift-log")],
                    exclude: ["Conformance"],  // run from the repository by path, not bundled
                    swiftSettings: swiftSettings),
        .testTarget(name: "SensorsTests", dependencies: ["Sensors", "Hardware", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "DriftConfigTests", dependencies: ["DriftConfig", "DriftMesh", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "DriftCoreTests", dependencies: ["DriftCore", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "GNSSTests", dependencies: ["GNSS", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "DriftMediaTests", dependencies: ["DriftMedia", "DriftCore", "TestSupport"], resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "DriftMeshTests", dependencies: ["DriftMesh", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "DriftMeshSimTests", dependencies: ["DriftMeshSim", "DriftMesh", "TestSupport"],
                    exclude: ["Resources"],  // read from the repository by path, not bundled
                    swiftSettings: swiftSettings),
        .testTarget(name: "DriftStoreTests", dependencies: ["DriftStore", "DriftCore", "DriftMesh", "DriftSystem", "TestSupport",
                                                            .product(name: "GRDB", package: "GRDB.swift")], swiftSettings: swiftSettings),
        .testTarget(
            name: "DriftDaemonTests",
            dependencies: [
                "DriftDaemon", "CDriftSys", "GNSS", "Sensors", "DriftConfig", "Hardware", "TestSupport", "DriftCore", "DriftStore",
                "DriftMesh", "DriftSystem",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        /// The visitor API over real HTTP and WebSocket on loopback.
        .testTarget(
            name: "DriftWebTests",
            dependencies: [
                "DriftDaemon", "DriftCore", "DriftStore", "DriftConfig", "DriftMedia", "DriftMesh", "DriftSystem", "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        /// Runs the built `driftd` binary as a child process (notify socket, signals, exit codes).
        .testTarget(name: "driftdTests", dependencies: ["TestSupport", "Hardware", "DriftSystem", "DriftStore", "DriftCore", "DriftDaemon", "GNSS"], swiftSettings: swiftSettings),
    ]
)
