@testable import DriftDaemon
import DriftConfig
import DriftCore
import Foundation
import GNSS
import Logging
import ServiceLifecycle
import TestSupport
import Testing

/// The beacon profile's GPS power saving at the lowest real boundary: the GPS service reads a
/// pseudo-terminal, the test plays the receiver on its master side and sees the sleep and wake
/// commands arrive there. The schedule runs on a ``ManualClock``: nothing here waits for time.
@Suite("GPS power saver")
struct GPSPowerSaverTests {
    /// `count` receiver cycles (GGA + RMC) one second apart, starting at `start`.
    static func cycles(_ count: Int, from start: Date, latitude: Double = 52.4731) -> [UInt8] {
        let position = SimulatedGPS.Position(latitude: latitude, longitude: 13.4019, altitude: 44, hasFix: true)
        return (0..<count).flatMap { Array(SimulatedGPS.sentences(for: position, at: start + Double($0)).utf8) }
    }

    struct Rig {
        let pty: PseudoTerminalPair
        let clock = ManualClock()
        let saver: GPSPowerSaver
        let status = GPSStatus(source: "nmea")
        let health = HealthRegistry()
        let service: GPSService
        let inputs: AsyncStream<AmbientInput>

        init(family: GNSSReceiverFamily?, wake: Duration = .seconds(600), mode: GPSPowerSchedule.Mode = .sleep) throws {
            pty = try PseudoTerminalPair()
            saver = GPSPowerSaver(settings: .init(mode: mode, wakeInterval: wake, checkLimit: .seconds(60), checkFixes: 5),
                                  family: family, detect: family == nil, clock: clock, logger: Logger(label: "test"))
            let (inputs, ambient) = AsyncStream<AmbientInput>.makeStream()
            self.inputs = inputs
            service = GPSService(source: .serial(path: pty.slavePath, baud: 9600), ambient: ambient, status: status, health: health,
                                 logger: Logger(label: "test"), silenceLimit: .seconds(5), powerSaver: saver)
        }

        /// Waits for `count` fixes to be published (the service's own events, no timing).
        func fixes(_ count: Int) async {
            var seen = 0
            for await input in inputs {
                if case .gps(let state) = input, state.lastFix != nil { seen += 1 }
                if seen >= count { return }
            }
        }

        func run(_ body: @Sendable (Rig) async throws -> Void) async throws {
            let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                try await body(self)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
        }
    }

    @Test("a MediaTek receiver recognised by its banner sleeps on $PMTK161,0*28 once the position stands, wakes on $PMTK000*32, sleeps after the check")
    func mediatekCycle() async throws {
        let rig = try Rig(family: nil)
        try await rig.run { rig in
            // Once the service has the port open: the banner first, then 40 cycles (30 good fixes establish).
            await rig.saver.waitForAttachment()
            try rig.pty.write(PMTKSentence.make("PMTK011,MTKGPS"))
            let start = Date()
            try rig.pty.write(Self.cycles(40, from: start))
            let sleep = try await rig.pty.read(until: PMTKSentence.standby, timeout: .seconds(30))
            #expect(Array(sleep.suffix(PMTKSentence.standby.count)) == Array("$PMTK161,0*28\r\n".utf8))
            #expect(rig.saver.isAsleep && rig.saver.snapshot.receiver == "mediatek")
            #expect(rig.status.snapshot.power?.phase == "asleep")
            // The rest of the burst (a real receiver stops at the command; the 40 cycles came
            // at once) is read before the wake-up: read after it, 5 of them passed for the check
            // and put the receiver to sleep again at once (2 of 12 and 3 of 30 runs beside
            // stress-ng). At most the last cycle's fix is left (it may wait for the next
            // sentence): one stale fix, under the 5.
            await rig.fixes(39)

            // Asleep: the interval passes on the manual clock, the wake-up goes out.
            await rig.clock.waitForSleepers(1)
            rig.clock.advance(by: .seconds(600))
            let wake = try await rig.pty.read(until: PMTKSentence.test, timeout: .seconds(30))
            #expect(Array(wake.suffix(PMTKSentence.test.count)) == Array("$PMTK000*32\r\n".utf8))
            #expect(!rig.saver.isAsleep)
            #expect(rig.health.evaluate().faults[GPSService.component] == nil, "a sleeping receiver is no fault")

            // The check: five good fixes agree with the stable position, back to sleep.
            try rig.pty.write(Self.cycles(8, from: start + 700))
            _ = try await rig.pty.read(until: PMTKSentence.standby, timeout: .seconds(30))
            #expect(rig.saver.isAsleep && rig.saver.snapshot.sleeps == 2)
        }
    }

    @Test("a configured u-blox receiver gets UBX-RXM-PMREQ for the wake interval, and 0xFF bytes to wake")
    func ubloxCommands() async throws {
        let rig = try Rig(family: .ublox, wake: .seconds(1_800))
        try await rig.run { rig in
            await rig.saver.waitForAttachment()
            try rig.pty.write(Self.cycles(40, from: Date()))
            let frame = UBXFrame.powerManagementRequest(durationMs: 1_800_000)
            let received = try await rig.pty.read(until: frame, timeout: .seconds(30))
            #expect(Array(received.suffix(frame.count)) == frame)
            await rig.clock.waitForSleepers(1)
            rig.clock.advance(by: .seconds(1_800))
            let wake = try await rig.pty.read(until: [UInt8](repeating: 0xFF, count: 8), timeout: .seconds(30))
            #expect(wake.suffix(8).allSatisfy { $0 == 0xFF })
        }
    }

    @Test("an unrecognised receiver is never sent anything")
    func unknownReceiverLeftAlone() async throws {
        let rig = try Rig(family: nil)
        try await rig.run { rig in
            await rig.saver.waitForAttachment()
            try rig.pty.write(Self.cycles(40, from: Date()))
            // 39 fixes published: the stable position stands (30), and nothing was planned.
            await rig.fixes(39)
            #expect(rig.status.snapshot.stableFixes != nil)
            #expect(!rig.saver.isAsleep && rig.saver.snapshot.receiver == nil && rig.saver.snapshot.phase == "tracking")
            #expect(rig.saver.snapshot.sleeps == 0 && rig.saver.sleepCommandsSent(.ublox) + rig.saver.sleepCommandsSent(.mediatek) == 0)
        }
    }

    @Test("the beacon profile's position conditions accept a fix one sleep cycle old; the default profile keeps gps.max_fix_age_s")
    func fixAge() throws {
        #expect(Daemon.conditionLimits(try Self.config()).maximumFixAge == 30)
        let beacon = try Self.config([
            ("profile = \"default\"", "profile = \"beacon\""),
            ("kind = \"sim\"\nport = \"sim\"\nbaud = 0", "kind = \"nmea\"\nport = \"/dev/ttyUSB0\"\nbaud = 0"),
        ])
        #expect(Daemon.conditionLimits(beacon).maximumFixAge == 1_800 + 120)
        #expect(BoxDevices.gpsPowerSaver(beacon, logger: Logger(label: "test")) != nil)
    }

    @Test("the default profile slows a settled receiver (gps.settled_fix_interval_s), never sleeps it; 1 s or gps_receiver = none turn that off")
    func defaultProfileSaver() throws {
        let saver = try #require(BoxDevices.gpsPowerSaver(try Self.config(), logger: Logger(label: "test")))
        #expect(saver.snapshot.phase == "tracking" && saver.snapshot.receiver == "mediatek")
        #expect(BoxDevices.settledFixInterval(try Self.config()) == .seconds(10))
        #expect(Daemon.conditionLimits(try Self.config()).maximumFixAge == 30, "three slow fixes fit in gps.max_fix_age_s")
        let short = try Self.config([("max_fix_age_s = 30", "max_fix_age_s = 5")])
        #expect(Daemon.conditionLimits(short).maximumFixAge == 30, "a fix stays fresh for three slow intervals")
        let everySecond = try Self.config([("settled_fix_interval_s = 10", "settled_fix_interval_s = 1")])
        #expect(BoxDevices.gpsPowerSaver(everySecond, logger: Logger(label: "test")) == nil)
        #expect(Daemon.conditionLimits(everySecond).maximumFixAge == 30)
        let untouched = try Self.config([("gps_receiver = \"auto\"", "gps_receiver = \"none\"")])
        #expect(BoxDevices.gpsPowerSaver(untouched, logger: Logger(label: "test")) == nil)
    }

    @Test("default profile: a MediaTek receiver gets `$PMTK220,10000*2F` once the position stands, `$PMTK220,1000*1F` when the box moved")
    func settledReceiver() async throws {
        let rig = try Rig(family: .mediatek, mode: .slowFixes(interval: .seconds(10)))
        try await rig.run { rig in
            await rig.saver.waitForAttachment()
            let start = Date()
            try rig.pty.write(Self.cycles(40, from: start))
            let slow = PMTKSentence.fixInterval(milliseconds: 10_000)
            let settled = try await rig.pty.read(until: slow, timeout: .seconds(30))
            #expect(Array(settled.suffix(slow.count)) == Array("$PMTK220,10000*2F\r\n".utf8))
            #expect(rig.status.snapshot.power?.phase == "settled" && rig.status.snapshot.power?.fixIntervalSeconds == 10)
            #expect(rig.saver.fixInterval == .seconds(10) && !rig.saver.isAsleep)
            // 25 fixes 1.1 km north: the moved rule restarts the stable position, a fix a second again.
            try rig.pty.write(Self.cycles(25, from: start + 100, latitude: 52.4831))
            let fast = PMTKSentence.fixInterval(milliseconds: 1_000)
            _ = try await rig.pty.read(until: fast, timeout: .seconds(30))
            #expect(rig.saver.fixInterval == .seconds(1) && rig.status.snapshot.power?.phase == "tracking")
        }
    }

    /// The embedded sim board with `replacements`.
    static func config(_ replacements: [(String, String)] = []) throws -> DriftConfiguration {
        var text = DriftConfiguration.embeddedDefaultText
        for (old, new) in replacements {
            precondition(text.contains(old), "sim.toml lacks \(old)")
            text = text.replacingOccurrences(of: old, with: new)
        }
        return try ConfigLoader(systemBoardDirectories: []).load(text: text, fileName: "test.toml", baseDirectory: nil).configuration
    }
}

@Suite("Beacon profile: plan, access point, simulated receiver")
struct BeaconProfileTests {
    @Test("the power plan: the default profile changes nothing; the beacon turns HDMI, the ACT LED, Wi-Fi and the access point off; a gateway keeps Wi-Fi")
    func plan() throws {
        var config = ConfigLoader.loadEmbeddedDefault().configuration
        config.accessPoint.enabled = true
        #expect(PowerPlan(config: config).renderShell() == "profile=default\nhdmi=on\nactivity_led=on\nwifi=on\naccess_point=on\n")
        config.power.profile = .beacon
        #expect(PowerPlan(config: config).renderShell() == "profile=beacon\nhdmi=off\nactivity_led=off\nwifi=off\naccess_point=off\n")
        config.mqtt.enabled = true
        #expect(PowerPlan(config: config).wifi)
        config.power.profile = .default
        config.camp.beaconKit = true
        #expect(PowerPlan(config: config).profile == .beacon, "camp.beacon_kit selects the beacon profile")
    }

    @Test("the access point renders nothing in the beacon profile and removes earlier files")
    func noAccessPoint() throws {
        let directory = try TemporaryDirectory(prefix: "ap-beacon")
        defer { directory.remove() }
        var config = ConfigLoader.loadEmbeddedDefault().configuration
        config.accessPoint.enabled = true
        let renderer = AccessPointRenderer(directory: directory.path)
        guard case .rendered(let paths) = try renderer.render(config: config, source: "x", requireInterface: false) else {
            Issue.record("the default profile renders the access point")
            return
        }
        config.power.profile = .beacon
        #expect(try renderer.render(config: config, source: "x", requireInterface: false) == .beaconProfile)
        #expect(paths.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
    }

    @Test("the simulated receiver takes `$PMTK220` as a MediaTek one: 100 ms … 10 s, checksum checked")
    func simulatedFixInterval() {
        let gps = SimulatedGPS(latitude: 52.4731, longitude: 13.4019, altitude: 44)
        #expect(gps.interval == .seconds(1))
        gps.receive(PMTKSentence.fixInterval(milliseconds: 10_000))
        #expect(gps.interval == .seconds(10))
        gps.receive(Array("$PMTK220,5000*1C\r\n".utf8))
        #expect(gps.interval == .seconds(10), "a bad checksum is ignored")
        gps.receive(PMTKSentence.fixInterval(milliseconds: 60_000))
        #expect(gps.interval == .seconds(10), "beyond MediaTek's range: ignored")
        gps.receive(PMTKSentence.fixInterval(milliseconds: 1_000))
        #expect(gps.interval == .seconds(1) && !gps.isAsleep)
    }

    @Test("the simulated receiver sleeps on $PMTK161 and wakes on any byte, like a MediaTek one")
    func simulatedReceiver() {
        let gps = SimulatedGPS(latitude: 52.4731, longitude: 13.4019, altitude: 44)
        #expect(!gps.isAsleep)
        gps.receive(PMTKSentence.standby)
        #expect(gps.isAsleep)
        gps.receive(PMTKSentence.test)
        #expect(!gps.isAsleep)
        #expect(BoxDevices.gpsPowerSaver(try! GPSPowerSaverTests.config([("profile = \"default\"", "profile = \"beacon\"")]),
                                         logger: Logger(label: "test"))?.snapshot.receiver == "mediatek",
                "the sim board's receiver is taken as MediaTek")
    }
}
