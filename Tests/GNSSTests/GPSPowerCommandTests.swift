import GNSS
import Testing

/// The power-save frames, byte for byte against the documents docs/gnss.md cites ("Power save").
@Suite("GPS power-save commands")
struct GPSPowerCommandTests {
    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("PMTK161 standby is the MediaTek manual's example `$PMTK161,0*28`")
    func pmtkStandby() {
        #expect(PMTKSentence.standby == Self.ascii("$PMTK161,0*28\r\n"))
        #expect(PMTKSentence.make("PMTK161,1") == Self.ascii("$PMTK161,1*29\r\n"), "SLEEP, the Telit SL869-V2 guide's second example")
        #expect(GPSPowerCommand.sleep(.mediatek, interval: .seconds(1_800)) == PMTKSentence.standby)
    }

    @Test("PMTK225 periodic mode matches the Quectel examples (periodic standby and backup)")
    func pmtkPeriodic() {
        #expect(PMTKSentence.periodic(type: 2, runMs: 3_000, sleepMs: 12_000, secondRunMs: 18_000, secondSleepMs: 72_000)
                == Self.ascii("$PMTK225,2,3000,12000,18000,72000*15\r\n"))
        #expect(PMTKSentence.periodic(type: 1, runMs: 3_000, sleepMs: 12_000, secondRunMs: 18_000, secondSleepMs: 72_000)
                == Self.ascii("$PMTK225,1,3000,12000,18000,72000*16\r\n"))
        #expect(PMTKSentence.make("PMTK225,0") == Self.ascii("$PMTK225,0*2B\r\n"), "back to full power, the Telit guides' `$PMTK225,0*2B`")
    }

    @Test("the MediaTek wake-up is the test packet `$PMTK000*32`")
    func pmtkWake() {
        #expect(GPSPowerCommand.wake(.mediatek) == Self.ascii("$PMTK000*32\r\n"))
    }

    @Test("the UBX checksum is the 8-bit Fletcher of the protocol specification: CFG-RST cold start ends 94 F5")
    func ubxChecksum() {
        // UBX-CFG-RST with navBbrMask 0xFFFF (cold start), resetMode 0x87 … as published with its checksum.
        #expect(UBXFrame.make(messageClass: 0x06, id: 0x04, payload: [0xFF, 0x87, 0x00, 0x00])
                == [0xB5, 0x62, 0x06, 0x04, 0x04, 0x00, 0xFF, 0x87, 0x00, 0x00, 0x94, 0xF5])
        // CFG-RXM power save mode (u-blox 6), as the UKHAS guide sends it.
        #expect(UBXFrame.make(messageClass: 0x06, id: 0x11, payload: [0x08, 0x01])
                == [0xB5, 0x62, 0x06, 0x11, 0x02, 0x00, 0x08, 0x01, 0x22, 0x92])
    }

    @Test("UBX-RXM-PMREQ: class 02 id 41, 8-byte payload (duration ms, flags with backup = bit 1)")
    func ubxPowerRequest() {
        // Infinite backup: the frame every u-blox 6/7/8 takes (worked out in docs/gnss.md).
        #expect(UBXFrame.powerManagementRequest(durationMs: 0)
                == [0xB5, 0x62, 0x02, 0x41, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x4D, 0x3B])
        // 30 min = 1 800 000 ms = 0x001B7740, little-endian.
        #expect(GPSPowerCommand.sleep(.ublox, interval: .seconds(1_800))
                == [0xB5, 0x62, 0x02, 0x41, 0x08, 0x00, 0x40, 0x77, 0x1B, 0x00, 0x02, 0x00, 0x00, 0x00, 0x1F, 0x1E])
        #expect(GPSPowerCommand.wake(.ublox) == [UInt8](repeating: 0xFF, count: 8))
    }

    @Test("PMTK220 fix interval: the published `$PMTK220,1000*1F` and `$PMTK220,10000*2F`; clamped to 100 ms … 10 s")
    func pmtkFixInterval() {
        #expect(GPSPowerCommand.fixInterval(.mediatek, interval: .seconds(1)) == Self.ascii("$PMTK220,1000*1F\r\n"))
        #expect(GPSPowerCommand.fixInterval(.mediatek, interval: .seconds(10)) == Self.ascii("$PMTK220,10000*2F\r\n"))
        #expect(PMTKSentence.fixInterval(milliseconds: 5_000) == Self.ascii("$PMTK220,5000*1B\r\n"))
        #expect(GPSPowerCommand.fixInterval(.mediatek, interval: .seconds(60)) == Self.ascii("$PMTK220,10000*2F\r\n"))
        #expect(GPSPowerCommand.fixInterval(.mediatek, interval: .milliseconds(10)) == PMTKSentence.fixInterval(milliseconds: 100))
    }

    @Test("UBX-CFG-RATE: the published 1 Hz frame (… E8 03 01 00 01 00 01 39), and 10 s")
    func ubxRate() {
        #expect(GPSPowerCommand.fixInterval(.ublox, interval: .seconds(1))
                == [0xB5, 0x62, 0x06, 0x08, 0x06, 0x00, 0xE8, 0x03, 0x01, 0x00, 0x01, 0x00, 0x01, 0x39])
        // 10 000 ms = 0x2710, little-endian; navRate 1, timeRef 1 (GPS time).
        #expect(GPSPowerCommand.fixInterval(.ublox, interval: .seconds(10))
                == [0xB5, 0x62, 0x06, 0x08, 0x06, 0x00, 0x10, 0x27, 0x01, 0x00, 0x01, 0x00, 0x4D, 0xDD])
    }

    @Test("receivers are recognised by their own sentences", arguments: [
        ("$PMTK011,MTKGPS*08", GNSSReceiverFamily.mediatek as GNSSReceiverFamily?),
        ("$PMTK001,0,3*30", .mediatek),
        ("$GPTXT,01,01,02,u-blox ag - www.u-blox.com*50", .ublox),
        ("$PUBX,00,000000.00,0000.00000,N,00000.00000,E,0.000,NF,5303302,3750001,0.000,0.00,0.000,,99.99,99.99,99.99,0,0,0*28", .ublox),
        ("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47", nil),
        ("$GNTXT,01,01,02,HW UBX-M8030 00080000*60", .ublox),
        ("$GPTXT,01,01,02,ANTSTATUS=OK*3B", nil),
    ])
    func identify(_ line: String, _ expected: GNSSReceiverFamily?) throws {
        let sentence = try #require(NMEASentence.parse(line), "\(line) must frame")
        #expect(GNSSReceiverFamily.identify(sentence) == expected)
    }
}

@Suite("GPS power schedule")
struct GPSPowerScheduleTests {
    let settings = GPSPowerSchedule.Settings(wakeInterval: .seconds(600), checkLimit: .seconds(60), checkFixes: 3)

    @Test("nothing is sent before the receiver's family is known")
    func unknownFamily() {
        var schedule = GPSPowerSchedule(settings: settings)
        #expect(schedule.fix(good: true, established: true, now: .seconds(40)).isEmpty)
        schedule.recognised(.mediatek)
        #expect(schedule.fix(good: true, established: true, now: .seconds(41)) == [.sleep(.mediatek)])
    }

    @Test("tracking until established, asleep for the interval, woken, asleep again after enough good fixes")
    func cycle() {
        var schedule = GPSPowerSchedule(settings: settings, family: .ublox)
        #expect(schedule.fix(good: true, established: false, now: .seconds(10)).isEmpty)
        #expect(schedule.nextDeadline == nil, "tracking waits for fixes only")
        #expect(schedule.fix(good: true, established: true, now: .seconds(30)) == [.sleep(.ublox)])
        #expect(schedule.isAsleep && schedule.nextDeadline == .seconds(630))
        #expect(schedule.tick(now: .seconds(629), established: true).isEmpty)
        #expect(schedule.tick(now: .seconds(630), established: true) == [.wake(.ublox)])
        #expect(schedule.phase == .checking(since: .seconds(630), goodFixes: 0) && schedule.nextDeadline == .seconds(690))
        #expect(schedule.fix(good: false, established: true, now: .seconds(631)).isEmpty, "a weak fix does not count")
        #expect(schedule.fix(good: true, established: true, now: .seconds(632)).isEmpty)
        #expect(schedule.fix(good: true, established: true, now: .seconds(633)).isEmpty)
        #expect(schedule.fix(good: true, established: true, now: .seconds(634)) == [.sleep(.ublox)])
        #expect(schedule.phase == .asleep(until: .seconds(1_234)) && schedule.sleeps == 2)
    }

    @Test("a check with no sky ends at the limit and sleeps again; a moved box stays awake until re-established")
    func checkLimitAndMove() {
        var schedule = GPSPowerSchedule(settings: settings, family: .mediatek)
        _ = schedule.fix(good: true, established: true, now: .zero)
        #expect(schedule.tick(now: .seconds(600), established: true) == [.wake(.mediatek)])
        #expect(schedule.tick(now: .seconds(660), established: true) == [.sleep(.mediatek)], "no fix within the limit: back to sleep")
        #expect(schedule.tick(now: .seconds(1_260), established: true) == [.wake(.mediatek)])
        #expect(schedule.fix(good: true, established: false, now: .seconds(1_261)).isEmpty, "moved: the estimate restarted")
        #expect(schedule.phase == .tracking && schedule.nextDeadline == nil)
        #expect(schedule.fix(good: true, established: true, now: .seconds(1_300)) == [.sleep(.mediatek)])
    }

    @Test("a reopened receiver runs at full power until the next fix puts it back to sleep")
    func reopened() {
        var schedule = GPSPowerSchedule(settings: settings, family: .ublox)
        _ = schedule.fix(good: true, established: true, now: .zero)
        #expect(schedule.reopened().isEmpty, "a sleeping receiver that was replugged wakes at full power by itself")
        #expect(!schedule.isAsleep)
        #expect(schedule.fix(good: true, established: true, now: .seconds(5)) == [.sleep(.ublox)])
    }
}

@Suite("GPS fix schedule (default profile): awake, slowed once the position stands")
struct GPSSlowFixScheduleTests {
    let settings = GPSPowerSchedule.Settings(mode: .slowFixes(interval: .seconds(10)))

    @Test("tracking at a fix a second until the position stands, then one fix per interval; never a deadline")
    func settles() {
        var schedule = GPSPowerSchedule(settings: settings, family: .mediatek)
        #expect(schedule.fixInterval == .seconds(1))
        #expect(schedule.fix(good: true, established: false, now: .seconds(1)).isEmpty)
        #expect(schedule.fix(good: true, established: true, now: .seconds(30)) == [.fixInterval(.mediatek, .seconds(10))])
        #expect(schedule.phase == .settled && schedule.fixInterval == .seconds(10) && !schedule.isAsleep)
        #expect(schedule.fix(good: true, established: true, now: .seconds(40)).isEmpty, "already settled: nothing resent")
        #expect(schedule.nextDeadline == nil && schedule.tick(now: .seconds(100_000), established: true).isEmpty,
                "the settled receiver needs no timer")
        #expect(schedule.sleeps == 0)
    }

    @Test("a box that moved goes back to a fix a second until the new place stands")
    func moved() {
        var schedule = GPSPowerSchedule(settings: settings, family: .ublox)
        _ = schedule.fix(good: true, established: true, now: .seconds(30))
        #expect(schedule.fix(good: true, established: false, now: .seconds(300)) == [.fixInterval(.ublox, .seconds(1))])
        #expect(schedule.phase == .tracking && schedule.fixInterval == .seconds(1))
        #expect(schedule.fix(good: true, established: true, now: .seconds(330)) == [.fixInterval(.ublox, .seconds(10))])
    }

    @Test("a reopened port is told a fix a second again (it may lead to the same, slowed receiver)")
    func reopened() {
        var schedule = GPSPowerSchedule(settings: settings, family: .mediatek)
        #expect(schedule.reopened().isEmpty, "not slowed: nothing to undo")
        _ = schedule.fix(good: true, established: true, now: .seconds(30))
        #expect(schedule.reopened() == [.fixInterval(.mediatek, .seconds(1))])
        #expect(schedule.phase == .tracking)
    }

    @Test("a receiver of unknown family is never sent anything")
    func unknownFamily() {
        var schedule = GPSPowerSchedule(settings: settings)
        #expect(schedule.fix(good: true, established: true, now: .seconds(30)).isEmpty)
        #expect(schedule.phase == .tracking)
        schedule.recognised(.mediatek)
        #expect(schedule.fix(good: true, established: true, now: .seconds(31)) == [.fixInterval(.mediatek, .seconds(10))])
    }
}
