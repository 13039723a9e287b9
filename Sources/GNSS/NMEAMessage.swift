/// A parsed NMEA sentence: the standard ones the box uses, or what kind of other sentence it was.
public enum NMEAMessage: Sendable, Equatable {
    case gga(GGA)
    case rmc(RMC)
    case gsa(GSA)
    case gsv(GSV)
    case gll(GLL)
    case vtg(VTG)
    case zda(ZDA)
    case gns(GNS)
    case gst(GST)
    case gbs(GBS)
    case txt(TXT)
    case dtm(DTM)
    case hdt(HDT)
    /// A `$P…` sentence (vendor address such as `PMTK001`, `PSRF151`): accepted and ignored.
    case proprietary(address: String)
    /// A `!` sentence (AIS `!AIVDM`/`!AIVDO`): accepted and ignored.
    case encapsulated(address: String)
    /// A well-framed standard sentence of a type not parsed here (`RMB`, `GRS`, `DPT`, …).
    case unsupported(address: String)
}

/// Global positioning fix data: time, position, quality, satellites used, HDOP, altitude.
public struct GGA: Sendable, Equatable {
    public var time: NMEATimeOfDay?
    public var latitude: Double?
    public var longitude: Double?
    /// 0 invalid, 1 GPS, 2 DGPS, 3 PPS, 4 RTK fixed, 5 RTK float, 6 dead reckoning, 7 manual, 8 simulator.
    public var quality: Int?
    public var satellitesUsed: Int?
    public var hdop: Double?
    public var altitudeMSL: Double?
    public var geoidSeparation: Double?
    public var dgpsAge: Double?
    public var dgpsStation: Int?
}

/// Recommended minimum data: time, date, status, position, speed over ground, track.
public struct RMC: Sendable, Equatable {
    public var time: NMEATimeOfDay?
    /// `A` valid, `V` void.
    public var status: Character?
    public var latitude: Double?
    public var longitude: Double?
    public var speedKnots: Double?
    public var trackTrue: Double?
    public var date: NMEADate?
    /// Magnetic variation in degrees, east positive.
    public var magneticVariation: Double?
    /// FAA mode indicator (NMEA 2.3+): A autonomous, D differential, E estimated, F float RTK,
    /// M manual, N not valid, P precise, R RTK fixed, S simulator.
    public var faaMode: Character?
    /// Navigational status (NMEA 4.10+): S safe, C caution, U unsafe, V not valid.
    public var navigationalStatus: Character?
}

/// DOP and active satellites.
public struct GSA: Sendable, Equatable {
    /// `A` automatic, `M` manual.
    public var selection: Character?
    /// 1 no fix, 2 2D, 3 3D.
    public var fixMode: Int?
    /// Satellite ids used in the solution, as the receiver numbers them.
    public var satelliteIDs: [Int]
    public var pdop: Double?
    public var hdop: Double?
    public var vdop: Double?
    /// NMEA 4.10 GNSS system id: 1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC.
    public var systemID: Int?
    /// Number of fields including the address (18 for NMEA 2.x/3.x, 19 with a system id).
    public var fieldCount: Int
}

/// Satellites in view, one page of a GSV group.
public struct GSV: Sendable, Equatable {
    /// One satellite in view as the receiver numbers it.
    public struct Satellite: Sendable, Equatable {
        public var id: Int
        public var elevation: Double?
        public var azimuth: Double?
        public var snr: Double?
    }

    public var messageCount: Int
    public var messageNumber: Int
    public var satellitesInView: Int?
    public var satellites: [Satellite]
    /// NMEA 4.10 signal id (last field when the field count says so).
    public var signalID: Int?
}

/// Geographic position: latitude, longitude, time, status.
public struct GLL: Sendable, Equatable {
    public var latitude: Double?
    public var longitude: Double?
    public var time: NMEATimeOfDay?
    /// `A` valid, `V` void.
    public var status: Character?
    public var faaMode: Character?
}

/// Track and speed over ground.
public struct VTG: Sendable, Equatable {
    public var trackTrue: Double?
    public var trackMagnetic: Double?
    public var speedKnots: Double?
    public var speedKmh: Double?
    public var faaMode: Character?
}

/// Time and date with four-digit year.
public struct ZDA: Sendable, Equatable {
    public var time: NMEATimeOfDay?
    public var date: NMEADate?
    public var localZoneHours: Int?
    public var localZoneMinutes: Int?
}

/// Multi-constellation fix data (NMEA 4.x): like GGA with a mode character per system.
public struct GNS: Sendable, Equatable {
    public var time: NMEATimeOfDay?
    public var latitude: Double?
    public var longitude: Double?
    /// One mode character per system (GPS, GLONASS, Galileo, BeiDou, …): N, A, D, P, R, F, E, M, S.
    public var modes: String
    public var satellitesUsed: Int?
    public var hdop: Double?
    public var altitudeMSL: Double?
    public var geoidSeparation: Double?
    public var dgpsAge: Double?
    public var dgpsStation: Int?
    public var navigationalStatus: Character?
}

/// Pseudorange error statistics (1-sigma, metres).
public struct GST: Sendable, Equatable {
    public var time: NMEATimeOfDay?
    public var rmsRange: Double?
    public var semiMajor: Double?
    public var semiMinor: Double?
    public var orientation: Double?
    public var latitudeError: Double?
    public var longitudeError: Double?
    public var altitudeError: Double?
}

/// Satellite fault detection (RAIM).
public struct GBS: Sendable, Equatable {
    public var time: NMEATimeOfDay?
    public var latitudeError: Double?
    public var longitudeError: Double?
    public var altitudeError: Double?
    public var failedSatelliteID: Int?
    public var systemID: Int?
    public var signalID: Int?
}

/// Text transmission.
public struct TXT: Sendable, Equatable {
    public var messageCount: Int?
    public var messageNumber: Int?
    /// 0 error, 1 warning, 2 notice, 7 user.
    public var textID: Int?
    public var text: String
}

/// Datum reference.
public struct DTM: Sendable, Equatable {
    public var localDatum: String
    public var subdivision: String
    public var latitudeOffsetMinutes: Double?
    public var longitudeOffsetMinutes: Double?
    public var altitudeOffset: Double?
    public var referenceDatum: String
}

/// True heading.
public struct HDT: Sendable, Equatable {
    public var heading: Double?
}
