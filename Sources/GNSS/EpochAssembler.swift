import Foundation

/// Merges the sentences of one receiver cycle into one ``GNSSEpoch``, the way gpsd does.
///
/// A cycle ends when a sentence carries a time of day different from the cycle's
/// (the first sentence of the next cycle), or at ``finish()``. Within a cycle:
/// - mode: the last sentence that says something about it wins: GSA's fix mode;
///   GGA/GNS with a fix give 3D when they carry an altitude and 2D without; a valid
///   RMC or GLL raises it to at least 2D; GGA quality 0, an all-`N` GNS, a void
///   RMC/GLL set "no fix". Position is reported only from 2D up, altitude only in 3D.
/// - status: GGA quality / GNS mode characters, else RMC/GLL FAA mode (DGPS, RTK
///   fixed/float, dead reckoning, simulator).
/// - time: the cycle's time of day with the last date from a valid RMC or a ZDA;
///   none until a date has been seen. Void RMC/GLL carry no usable time or date.
///   Dates are reported as given (no GPS week-rollover correction here).
/// - speed (m/s) and track from RMC, else VTG; position from the valid sentences.
/// The sky view lists satellites (last complete GSV group per talker and signal,
/// `used` from the cycle's GSA lists) in the epochs where a GSV group completed,
/// as gpsd's SKY does; a group not refreshed for ``satelliteLifetime`` epochs expires.
public struct EpochAssembler: Sendable {
    private var date: NMEADate?
    /// The previous epoch's fix: its mode carries over into RMC/GLL-only cycles, its
    /// position and time give a speed when a cycle reports none.
    private var previousFix: GNSSFix?
    private var current = Cycle()
    private var sky = SkyView()
    /// GSV pages being collected, per talker+signal.
    private var pendingSatellites: [String: [SatelliteInfo]] = [:]
    /// Last complete GSV group per talker+signal, with the epoch number it completed in.
    private var completeSatellites: [String: (satellites: [SatelliteInfo], epoch: Int)] = [:]
    private var completeOrder: [String] = []
    /// Epochs closed so far.
    private var epochNumber = 0
    /// Whether a GSV group completed in the current cycle.
    private var skyUpdated = false
    /// GSV groups not refreshed for this many epochs are dropped (receivers spread GSV over cycles).
    static let satelliteLifetime = 10
    /// GSA lists of the cycle, per constellation (nil key: GN without system id).
    private var usedIDs: [GNSSSatelliteKey] = []
    private var usedFromGSA = false
    private var lastGGATime: NMEATimeOfDay?
    private var lastGGATalker = ""
    private var seenNonGPGSA = false

    public init() {}

    /// Feeds one parsed sentence; returns the epoch it closed, if any.
    public mutating func consume(_ message: NMEAMessage, talker: Substring?) -> GNSSEpoch? {
        var closed: GNSSEpoch?
        if let time = Self.timeOfDay(of: message) {
            if let key = current.timeOfDay, key != time {
                closed = closeCycle()
            } else if current.timeOfDay == nil,
                      current.fix.mode != .notSeen || current.fix.speed != nil || current.fix.track != nil {
                // Untimed sentences at the start of a capture that said something about
                // the fix are the tail of a cycle we did not see: report them on their own.
                closed = closeCycle()
            }
            if current.timeOfDay == nil { current.timeOfDay = time }
        }
        current.sentenceCount += 1
        apply(message, talker: talker)
        return closed
    }

    /// Ends the stream: returns the last epoch if any sentence is pending.
    public mutating func finish() -> GNSSEpoch? {
        current.sentenceCount > 0 ? closeCycle() : nil
    }

    private static func timeOfDay(of message: NMEAMessage) -> NMEATimeOfDay? {
        switch message {
        case .gga(let m): m.time
        case .rmc(let m): m.time
        case .gll(let m): m.time
        case .gns(let m): m.time
        case .zda(let m): m.time
        default: nil
        }
    }

    private mutating func closeCycle() -> GNSSEpoch {
        var fix = current.fix
        if fix.mode <= .noFix {
            fix.latitude = nil
            fix.longitude = nil
            fix.altitudeMSL = nil
            fix.speed = nil
            fix.track = nil
            fix.magneticTrack = nil
        }
        if let timeOfDay = current.validTimeOfDay, let date {
            fix.time = GNSSTime(date: date, timeOfDay: timeOfDay)
        }
        if fix.speed == nil, let speed = Self.speed(from: previousFix, to: fix) {
            fix.speed = speed
        }
        previousFix = fix
        // Satellites in view with `used` from this cycle's GSA lists, when a GSV group
        // completed in this cycle (like gpsd's SKY); stale groups expire.
        completeOrder.removeAll { key in
            guard let group = completeSatellites[key], epochNumber - group.epoch > Self.satelliteLifetime else { return false }
            completeSatellites[key] = nil
            return true
        }
        if skyUpdated {
            var satellites: [SatelliteInfo] = []
            for key in completeOrder {
                for var satellite in completeSatellites[key]?.satellites ?? [] {
                    satellite.used = usedIDs.contains { $0.matches(satellite) }
                    satellites.append(satellite)
                }
            }
            sky.satellites = satellites.sorted { ($0.prn, $0.signalID ?? 0) < ($1.prn, $1.signalID ?? 0) }
        } else {
            sky.satellites = []
        }
        skyUpdated = false
        epochNumber += 1
        if usedFromGSA { sky.usedCount = usedIDs.count }
        let epoch = GNSSEpoch(timeOfDay: current.timeOfDay, fix: fix, sky: sky, sentenceCount: current.sentenceCount)
        current = Cycle()
        usedIDs = []
        usedFromGSA = false
        return epoch
    }

    private mutating func apply(_ message: NMEAMessage, talker: Substring?) {
        switch message {
        case .gga(let m):
            // Status from the quality field (an empty one says nothing).
            if let quality = m.quality { current.fix.status = Self.status(ggaQuality: quality) }
            // A GGA repeating the previous GGA's time (same talker) means lost lock on some
            // receivers that keep sending stale data: no fix, and this cycle's GSA is not trusted.
            let stamp = talker.map(String.init) ?? ""
            let latched = m.time != nil && m.time == lastGGATime && stamp == lastGGATalker
            lastGGATime = m.time
            lastGGATalker = stamp
            if let time = m.time { current.validTimeOfDay = time }
            if let hdop = m.hdop { sky.hdop = hdop }
            if !usedFromGSA, let used = m.satellitesUsed { sky.usedCount = used }
            if latched {
                current.latched = true
                current.fix.mode = .noFix
                current.fix.status = .unknown
                return
            }
            guard let latitude = m.latitude, let longitude = m.longitude else {
                current.fix.mode = .noFix
                return
            }
            current.fix.latitude = latitude
            current.fix.longitude = longitude
            current.fix.mode = .twoD
            if let separation = m.geoidSeparation { current.fix.geoidSeparation = separation }
            let satellites = m.satellitesUsed ?? 0
            if let altitude = m.altitudeMSL {
                current.fix.altitudeMSL = altitude
                // 3D needs four satellites, or (as gpsd does) a previous fix that already had an altitude.
                if satellites >= 4 || (previousFix.map { $0.mode >= .twoD && $0.altitudeMSL != nil } ?? false) {
                    current.fix.mode = .threeD
                }
            }
            if satellites < 3 { current.fix.mode = .noFix }
            if let age = m.dgpsAge, let station = m.dgpsStation, age > 0.09 || station > 0 {
                current.fix.dgpsAge = age
                current.fix.dgpsStation = station
            }
        case .gns(let m):
            if let time = m.time { current.validTimeOfDay = time }
            let modes = m.modes.filter { $0 != "N" }
            guard let best = modes.first else {
                current.fix.mode = .noFix
                return
            }
            if current.fix.status.rawValue <= GNSSFix.Status.gps.rawValue {
                current.fix.status = Self.status(faaMode: best)
            }
            setPosition(m.latitude, m.longitude)
            if let altitude = m.altitudeMSL {
                current.fix.altitudeMSL = altitude
                current.fix.mode = .threeD
            } else {
                current.fix.mode = max(current.fix.mode, .twoD)
            }
            if let separation = m.geoidSeparation { current.fix.geoidSeparation = separation }
            if let hdop = m.hdop { sky.hdop = hdop }
        case .rmc(let m):
            guard m.status == "A" else {
                current.fix.mode = .noFix
                return
            }
            if let date = m.date { self.date = date }
            if let time = m.time { current.validTimeOfDay = time }
            setPosition(m.latitude, m.longitude)
            raiseToAtLeastTwoD()
            if let faa = m.faaMode, current.fix.status.rawValue <= GNSSFix.Status.gps.rawValue {
                current.fix.status = Self.status(faaMode: faa)
            }
            if let knots = m.speedKnots { current.fix.speed = knots * Self.knot }
            if let track = m.trackTrue { current.fix.track = track }
            if let variation = m.magneticVariation { current.fix.magneticVariation = variation }
        case .gll(let m):
            guard m.status == "A", m.faaMode != "N" else {
                current.fix.mode = .noFix
                return
            }
            if current.validTimeOfDay == nil, let time = m.time { current.validTimeOfDay = time }
            setPosition(m.latitude, m.longitude)
            raiseToAtLeastTwoD()
        case .vtg(let m):
            guard m.faaMode != "N" else { return }
            if current.fix.speed == nil {
                if let knots = m.speedKnots {
                    current.fix.speed = knots * Self.knot
                } else if let kmh = m.speedKmh {
                    current.fix.speed = kmh / 3.6
                }
            }
            if current.fix.track == nil, let track = m.trackTrue { current.fix.track = track }
            if let magnetic = m.trackMagnetic { current.fix.magneticTrack = magnetic }
        case .zda(let m):
            guard let date = m.date else { return }
            self.date = date
            if current.validTimeOfDay == nil, let time = m.time { current.validTimeOfDay = time }
        case .gsa(let m):
            // Mode from GSA unless the sentence is short, this cycle's GGA was stale, a GPGSA
            // follows other constellations' GSAs, or it would demote a 3D fix with altitude to 2D.
            let isGP = talker == "GP"
            if isGP, seenNonGPGSA {
                // ignored, as gpsd does: the GN/GL/BD GSAs carry the fix mode
            } else if let mode = m.fixMode, let value = GNSSFix.Mode(rawValue: mode), value != .notSeen,
                      m.fieldCount >= 18, !current.latched,
                      !(value == .twoD && current.fix.mode == .threeD && current.fix.altitudeMSL != nil) {
                current.fix.mode = value
            }
            if !isGP { seenNonGPGSA = true }
            if let pdop = m.pdop { sky.pdop = pdop }
            if let hdop = m.hdop { sky.hdop = hdop }
            if let vdop = m.vdop { sky.vdop = vdop }
            let constellation = m.systemID.flatMap(GNSSConstellation.init(nmeaSystemID:))
                ?? talker.flatMap(GNSSConstellation.init(talker:))
            if !usedFromGSA { usedIDs = [] }
            usedFromGSA = true
            for id in m.satelliteIDs {
                if let satellite = SatelliteInfo(nmeaID: id, constellation: constellation) {
                    usedIDs.append(GNSSSatelliteKey(constellation: satellite.constellation, svid: satellite.svid))
                }
            }
        case .gsv(let m):
            let constellation = talker.flatMap(GNSSConstellation.init(talker:))
            let key = "\(talker ?? "")/\(m.signalID ?? 0)"
            if m.messageNumber == 1 { pendingSatellites[key] = [] }
            for page in m.satellites {
                guard var satellite = SatelliteInfo(nmeaID: page.id, constellation: constellation) else { continue }
                satellite.signalID = m.signalID
                satellite.elevation = page.elevation
                satellite.azimuth = page.azimuth
                satellite.snr = page.snr
                pendingSatellites[key, default: []].append(satellite)
            }
            if m.messageNumber == m.messageCount, let complete = pendingSatellites.removeValue(forKey: key) {
                if completeSatellites[key] == nil { completeOrder.append(key) }
                completeSatellites[key] = (complete, epochNumber)
                skyUpdated = true
            }
        case .gst, .gbs, .txt, .dtm, .hdt, .proprietary, .encapsulated, .unsupported:
            break
        }
    }

    /// A valid RMC/GLL says "a fix" without saying 2D or 3D: keep the last known
    /// 2D/3D (this cycle's, else the previous epoch's), as gpsd does.
    private mutating func raiseToAtLeastTwoD() {
        guard current.fix.mode < .twoD else { return }
        if let previous = previousFix?.mode, previous >= .twoD {
            current.fix.mode = previous
        } else {
            current.fix.mode = .twoD
        }
    }

    private mutating func setPosition(_ latitude: Double?, _ longitude: Double?) {
        guard let latitude, let longitude else { return }
        current.fix.latitude = latitude
        current.fix.longitude = longitude
    }

    /// Speed between two fixes with position and time (on the WGS 84 ellipsoid, local
    /// radii of curvature), for cycles whose sentences give none; like gpsd.
    static func speed(from previous: GNSSFix?, to fix: GNSSFix) -> Double? {
        guard let previous, previous.mode >= .twoD, fix.mode >= .twoD,
              let lat0 = previous.latitude, let lon0 = previous.longitude, let t0 = previous.time,
              let lat1 = fix.latitude, let lon1 = fix.longitude, let t1 = fix.time,
              t0.date == t1.date else { return nil }
        let seconds = Double(t1.timeOfDay.milliseconds - t0.timeOfDay.milliseconds) / 1000
        guard seconds > 0 else { return nil }
        let a = 6_378_137.0
        let e2 = 6.694_379_990_14e-3
        let phi = (lat0 + lat1) / 2 * .pi / 180
        let w = 1 - e2 * sin(phi) * sin(phi)
        let meridian = a * (1 - e2) / (w * w.squareRoot())
        let normal = a / w.squareRoot()
        let north = meridian * (lat1 - lat0) * .pi / 180
        let east = normal * cos(phi) * (lon1 - lon0) * .pi / 180
        return (north * north + east * east).squareRoot() / seconds
    }

    /// Metres per second in one knot.
    static let knot = 1852.0 / 3600.0

    static func status(ggaQuality: Int) -> GNSSFix.Status {
        switch ggaQuality {
        case 1: .gps
        case 2: .dgps
        case 3: .ppsFix
        case 4: .rtkFixed
        case 5: .rtkFloat
        case 6: .deadReckoning
        case 7: .timeOnly
        case 8: .simulated
        default: .unknown
        }
    }

    static func status(faaMode: Character) -> GNSSFix.Status {
        switch faaMode {
        case "A", "P": .gps
        case "D": .dgps
        case "E": .deadReckoning
        case "F": .rtkFloat
        case "R": .rtkFixed
        case "M": .timeOnly
        case "S": .simulated
        default: .unknown
        }
    }

    private struct Cycle: Sendable {
        var timeOfDay: NMEATimeOfDay?
        /// The time of day from a sentence whose time is usable (valid RMC, GGA, GNS, GLL, ZDA).
        var validTimeOfDay: NMEATimeOfDay?
        var fix = GNSSFix()
        var sentenceCount = 0
        /// This cycle's GGA repeated the previous GGA's time.
        var latched = false
    }
}

/// A satellite identity independent of numbering scheme.
struct GNSSSatelliteKey: Sendable, Equatable {
    var constellation: GNSSConstellation
    var svid: Int

    func matches(_ satellite: SatelliteInfo) -> Bool {
        satellite.constellation == constellation && satellite.svid == svid
    }
}
