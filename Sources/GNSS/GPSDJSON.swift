import Foundation

/// gpsd's JSON report lines (`TPV`, `SKY`) with its class names, field names, order and units.
public enum GPSDJSON {
    /// A `TPV` line for a fix. `status` is written only when it says more than plain GPS
    /// (DGPS, RTK, dead reckoning, simulator), as gpsd does.
    public static func tpv(_ fix: GNSSFix) -> String {
        var out = "{\"class\":\"TPV\""
        if fix.status.rawValue > GNSSFix.Status.gps.rawValue { out += ",\"status\":\(fix.status.rawValue)" }
        out += ",\"mode\":\(fix.mode.rawValue)"
        if let time = fix.time { out += ",\"time\":\"\(time.iso8601)\"" }
        if let lat = fix.latitude, let lon = fix.longitude {
            out += ",\"lat\":" + format(lat, 9) + ",\"lon\":" + format(lon, 9)
        }
        if let hae = fix.altitudeHAE, fix.altitudeMSL != nil { out += ",\"altHAE\":" + format(hae, 4) }
        if let msl = fix.altitudeMSL { out += ",\"altMSL\":" + format(msl, 4) + ",\"alt\":" + format(msl, 4) }
        if let track = fix.track { out += ",\"track\":" + format(track, 4) }
        if let magtrack = fix.magneticTrack { out += ",\"magtrack\":" + format(magtrack, 4) }
        if let magvar = fix.magneticVariation { out += ",\"magvar\":" + format(magvar, 1) }
        if let speed = fix.speed { out += ",\"speed\":" + format(speed, 3) }
        if let sep = fix.geoidSeparation { out += ",\"geoidSep\":" + format(sep, 3) }
        if let age = fix.dgpsAge, let station = fix.dgpsStation {
            out += ",\"dgpsAge\":" + format(age, 1) + ",\"dgpsSta\":\(station)"
        }
        return out + "}"
    }

    /// A `SKY` line: DOPs, counts and the satellites in view.
    public static func sky(_ sky: SkyView) -> String {
        var out = "{\"class\":\"SKY\""
        if let hdop = sky.hdop { out += ",\"hdop\":" + format(hdop, 2) }
        if let pdop = sky.pdop { out += ",\"pdop\":" + format(pdop, 2) }
        if let vdop = sky.vdop { out += ",\"vdop\":" + format(vdop, 2) }
        if !sky.satellites.isEmpty { out += ",\"nSat\":\(sky.satellites.count)" }
        if let used = sky.usedCount { out += ",\"uSat\":\(used)" }
        if !sky.satellites.isEmpty {
            out += ",\"satellites\":["
            out += sky.satellites.map { satellite in
                var item = "{\"PRN\":\(satellite.prn),\"gnssid\":\(satellite.constellation.rawValue),\"svid\":\(satellite.svid)"
                if let signal = satellite.signalID { item += ",\"sigid\":\(signal)" }
                if let az = satellite.azimuth { item += ",\"az\":" + format(az, 1) }
                if let el = satellite.elevation { item += ",\"el\":" + format(el, 1) }
                if let ss = satellite.snr { item += ",\"ss\":" + format(ss, 1) }
                return item + ",\"used\":\(satellite.used)}"
            }.joined(separator: ",")
            out += "]"
        }
        return out + "}"
    }

    static func format(_ value: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }
}
