/// The receiver families whose power-save commands we know.
public enum GNSSReceiverFamily: String, Sendable, Equatable, Hashable, CaseIterable, Codable {
    /// u-blox (NEO-6M, NEO-M8N, …): binary UBX frames beside the NMEA.
    case ublox
    /// MediaTek (MT3339, MT3333 and the modules built on them): `$PMTK` sentences.
    case mediatek

    /// The family a sentence gives away, or `nil`: `$PMTK…` (MediaTek's acknowledgements and
    /// its `$PMTK011,MTKGPS` start-up banner) → MediaTek; `$PUBX,…` or a `TXT` naming u-blox
    /// (the start-up banners `$GPTXT,01,01,02,u-blox ag - www.u-blox.com*50` and, on an M8,
    /// `$GNTXT,01,01,02,HW UBX-M8030 00080000*60`) → u-blox.
    public static func identify(_ sentence: NMEASentence) -> GNSSReceiverFamily? {
        let address = sentence.address
        if address.hasPrefix("PMTK") { return .mediatek }
        if address == "PUBX" { return .ublox }
        if address.hasSuffix("TXT") {
            let text = sentence.text.lowercased()
            if text.contains("u-blox") || text.contains("ubx-") { return .ublox }
        }
        return nil
    }
}

/// UBX frames (u-blox protocol specification, "UBX Protocol": frame structure and checksum).
public enum UBXFrame {
    /// `B5 62`, class, id, little-endian payload length, payload, then the 8-bit Fletcher
    /// checksum (CK_A, CK_B) over class, id, length and payload.
    public static func make(messageClass: UInt8, id: UInt8, payload: [UInt8]) -> [UInt8] {
        let length = UInt16(payload.count)
        let body = [messageClass, id, UInt8(length & 0xFF), UInt8(length >> 8)] + payload
        let (a, b) = checksum(body)
        return [0xB5, 0x62] + body + [a, b]
    }

    /// The 8-bit Fletcher algorithm of the UBX protocol (RFC 1145), over `bytes`.
    public static func checksum(_ bytes: [UInt8]) -> (UInt8, UInt8) {
        var a: UInt8 = 0
        var b: UInt8 = 0
        for byte in bytes {
            a &+= byte
            b &+= a
        }
        return (a, b)
    }

    /// UBX-RXM-PMREQ (class 0x02, id 0x41), the 8-byte form every u-blox 6/7/8 takes:
    /// `duration` (U4, ms; 0 = until woken) and `flags` (X4, bit 1 = backup).
    public static func powerManagementRequest(durationMs: UInt32, backup: Bool = true) -> [UInt8] {
        let flags: UInt32 = backup ? 0x02 : 0
        return make(messageClass: 0x02, id: 0x41, payload: littleEndian(durationMs) + littleEndian(flags))
    }

    /// UBX-CFG-RATE (class 0x06, id 0x08): a measurement every `measurementMs` (U2), one
    /// navigation solution per measurement (`navRate` 1), aligned to GPS time (`timeRef` 1).
    /// 1 Hz is the published `B5 62 06 08 06 00 E8 03 01 00 01 00 01 39`.
    public static func rate(measurementMs: UInt16) -> [UInt8] {
        make(messageClass: 0x06, id: 0x08, payload: littleEndian16(measurementMs) + littleEndian16(1) + littleEndian16(1))
    }

    static func littleEndian16(_ value: UInt16) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8)]
    }

    static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)]
    }
}

/// `$PMTK` sentences (MediaTek "PMTK command packet"): `$PMTK<type>,<fields>*<checksum>\r\n`,
/// the checksum being the NMEA XOR of everything between `$` and `*`.
public enum PMTKSentence {
    public static func make(_ body: String) -> [UInt8] {
        let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        let hex = String(checksum, radix: 16, uppercase: true)
        return Array("$\(body)*\(hex.count == 1 ? "0" + hex : hex)\r\n".utf8)
    }

    /// PMTK161 "enter standby mode": `0` = stop (standby); any byte on RX wakes it.
    public static let standby = make("PMTK161,0")
    /// PMTK000, the test packet: answered with `$PMTK001,0,3`; sent to wake a receiver in standby.
    public static let test = make("PMTK000")

    /// PMTK220 "set position fix interval": one fix (and one set of sentences) every
    /// `milliseconds`, 100…10000 (`$PMTK220,1000*1F` is one a second, `$PMTK220,10000*2F`
    /// one every ten).
    public static func fixInterval(milliseconds: Int) -> [UInt8] {
        make("PMTK220,\(milliseconds)")
    }

    /// PMTK225 "periodic mode": `type` 1 periodic backup, 2 periodic standby (0 = back to
    /// normal), run and sleep times in ms, and the second run/sleep pair used while a fix fails.
    public static func periodic(type: Int, runMs: Int, sleepMs: Int, secondRunMs: Int, secondSleepMs: Int) -> [UInt8] {
        make("PMTK225,\(type),\(runMs),\(sleepMs),\(secondRunMs),\(secondSleepMs)")
    }
}

/// What the daemon sends to put a receiver to sleep, to wake it, and to slow its fixes
/// (docs/gnss.md, "Power save").
public enum GPSPowerCommand {
    /// Puts the receiver to sleep for about `interval`.
    ///
    /// u-blox: UBX-RXM-PMREQ, backup, for `interval` (the receiver wakes by itself at the end,
    /// so a lost wake-up costs nothing). MediaTek: `$PMTK161,0` (standby until a byte arrives).
    public static func sleep(_ family: GNSSReceiverFamily, interval: Duration) -> [UInt8] {
        switch family {
        case .ublox:
            let milliseconds = interval.components.seconds * 1_000 + interval.components.attoseconds / 1_000_000_000_000_000
            return UBXFrame.powerManagementRequest(durationMs: UInt32(clamping: milliseconds))
        case .mediatek:
            return PMTKSentence.standby
        }
    }

    /// The shortest and longest fix interval ``fixInterval(_:interval:)`` sends: the range
    /// MediaTek's PMTK220 takes (u-blox's CFG-RATE takes more; one range serves both).
    public static let fixIntervalRange: ClosedRange<Duration> = .milliseconds(100) ... .seconds(10)

    /// One fix every `interval` (clamped to ``fixIntervalRange``), the receiver staying awake
    /// between them: u-blox UBX-CFG-RATE, MediaTek `$PMTK220`.
    public static func fixInterval(_ family: GNSSReceiverFamily, interval: Duration) -> [UInt8] {
        let clamped = min(max(interval, fixIntervalRange.lowerBound), fixIntervalRange.upperBound)
        let milliseconds = Int(clamped.components.seconds * 1_000 + clamped.components.attoseconds / 1_000_000_000_000_000)
        switch family {
        case .ublox: return UBXFrame.rate(measurementMs: UInt16(milliseconds))
        case .mediatek: return PMTKSentence.fixInterval(milliseconds: milliseconds)
        }
    }

    /// Wakes the receiver. u-blox: 0xFF bytes (any activity on RX wakes a receiver in backup;
    /// 0xFF is no valid start of a frame, so it is ignored once awake). MediaTek: the test
    /// packet, which wakes a receiver in standby and is acknowledged.
    public static func wake(_ family: GNSSReceiverFamily) -> [UInt8] {
        switch family {
        case .ublox: return [UInt8](repeating: 0xFF, count: 8)
        case .mediatek: return PMTKSentence.test
        }
    }
}
