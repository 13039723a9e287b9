/// GNSS constellations with gpsd's (u-blox) `gnssid` numbers.
public enum GNSSConstellation: Int, Sendable {
    case gps = 0, sbas = 1, galileo = 2, beidou = 3, imes = 4, qzss = 5, glonass = 6, navic = 7

    /// The constellation of an NMEA 4.10 system id (GSA/GSV/GBS): 1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC.
    public init?(nmeaSystemID: Int) {
        switch nmeaSystemID {
        case 1: self = .gps
        case 2: self = .glonass
        case 3: self = .galileo
        case 4: self = .beidou
        case 5: self = .qzss
        case 6: self = .navic
        default: return nil
        }
    }

    /// The constellation a talker id speaks for, `nil` for `GN` and unknown talkers.
    public init?(talker: Substring) {
        switch talker {
        case "GP": self = .gps
        case "GL": self = .glonass
        case "GA": self = .galileo
        case "GB", "BD": self = .beidou
        case "GQ", "QZ": self = .qzss
        case "GI": self = .navic
        default: return nil
        }
    }
}

/// One satellite in view, numbered the way gpsd numbers them.
public struct SatelliteInfo: Sendable, Equatable {
    /// gpsd's PRN: GPS 1–32, SBAS 33–64, GLONASS 65–96, QZSS 193–202, Galileo 301–336, BeiDou 401–463, NavIC 801–.
    public var prn: Int
    public var constellation: GNSSConstellation
    /// The satellite's number within its constellation.
    public var svid: Int
    /// NMEA 4.10 signal id, when the receiver gave one.
    public var signalID: Int?
    public var elevation: Double?
    public var azimuth: Double?
    /// Signal to noise ratio, dB-Hz.
    public var snr: Double?
    public var used: Bool

    /// Numbers a satellite from an NMEA id, the talker's or system id's constellation (`nil` for `GN`).
    public init?(nmeaID: Int, constellation hint: GNSSConstellation?) {
        var constellation: GNSSConstellation
        var svid: Int
        switch (hint, nmeaID) {
        case (.glonass?, 1...32): (constellation, svid) = (.glonass, nmeaID)   // some receivers number GLONASS 1–32
        case (.galileo?, 1...36): (constellation, svid) = (.galileo, nmeaID)
        case (.galileo?, 301...336): (constellation, svid) = (.galileo, nmeaID - 300)
        case (.beidou?, 1...63): (constellation, svid) = (.beidou, nmeaID)
        case (.beidou?, 401...463): (constellation, svid) = (.beidou, nmeaID - 400)
        case (.qzss?, 1...10): (constellation, svid) = (.qzss, nmeaID)
        case (.navic?, 1...14): (constellation, svid) = (.navic, nmeaID)
        case (_, 1...32): (constellation, svid) = (.gps, nmeaID)
        case (_, 33...64): (constellation, svid) = (.sbas, nmeaID + 87)
        case (_, 65...96): (constellation, svid) = (.glonass, nmeaID - 64)
        case (_, 120...158): (constellation, svid) = (.sbas, nmeaID)
        case (_, 193...202): (constellation, svid) = (.qzss, nmeaID - 192)
        case (_, 201...263) where hint == .beidou: (constellation, svid) = (.beidou, nmeaID - 200)
        case (_, 301...336): (constellation, svid) = (.galileo, nmeaID - 300)
        case (_, 401...463): (constellation, svid) = (.beidou, nmeaID - 400)
        default: return nil
        }
        self.constellation = constellation
        self.svid = svid
        switch constellation {
        case .gps: prn = svid
        case .sbas: prn = svid - 87
        case .glonass: prn = svid + 64
        case .qzss: prn = svid + 192
        case .galileo: prn = svid + 300
        case .beidou: prn = svid + 400
        case .navic: prn = svid + 800
        case .imes: prn = svid + 172
        }
        used = false
    }
}

/// Dilutions of precision and satellites, as gpsd reports them in a `SKY`.
public struct SkyView: Sendable, Equatable {
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?
    /// Satellites in view from the last complete GSV groups, with `used` from GSA;
    /// empty in epochs where no GSV group completed.
    public var satellites: [SatelliteInfo] = []
    /// Satellites used in the solution (GSA lists, or GGA's count when there is no GSA).
    public var usedCount: Int?

    public init() {}
}
