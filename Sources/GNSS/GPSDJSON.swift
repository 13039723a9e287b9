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
            out.reserveCapacity(out.utf8.count + sky.satellites.count * 80)
            out += ",\"satellites\":["
            for (index, satellite) in sky.satellites.enumerated() {
                if index > 0 { out += "," }
                out += "{\"PRN\":"
                out += String(satellite.prn)
                out += ",\"gnssid\":"
                out += String(satellite.constellation.rawValue)
                out += ",\"svid\":"
                out += String(satellite.svid)
                if let signal = satellite.signalID {
                    out += ",\"sigid\":"
                    out += String(signal)
                }
                if let az = satellite.azimuth { out += ",\"az\":" + format(az, 1) }
                if let el = satellite.elevation { out += ",\"el\":" + format(el, 1) }
                if let ss = satellite.snr { out += ",\"ss\":" + format(ss, 1) }
                out += satellite.used ? ",\"used\":true}" : ",\"used\":false}"
            }
            out += "]"
        }
        return out + "}"
    }

    private static let powersOfTen: [Double] = (0...9).map { power in
        (0..<power).reduce(1.0) { product, _ in product * 10 }
    }

    /// `value` with `decimals` fixed decimals, like `%.*f` (rounded half away from zero
    /// after scaling; `String(format:)` was half the decoder's time).
    static func format(_ value: Double, _ decimals: Int) -> String {
        // Fast path for whole numbers (azimuths, elevations, SNRs).
        if value == value.rounded(), abs(value) < 1e15 {
            let whole = String(Int64(value))
            return decimals == 0 ? whole : whole + "." + String(repeating: "0", count: decimals)
        }
        let scale = powersOfTen[min(max(decimals, 0), 9)]
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard value.isFinite, scaled < 9.0e15 else { return String(format: "%.\(decimals)f", value) }
        let units = Int64(scaled)
        let divisor = Int64(scale)
        var text = value < 0 && units != 0 ? "-" : ""
        text += String(units / divisor)
        if decimals > 0 {
            let fraction = String(units % divisor)
            text += "."
            text += String(repeating: "0", count: decimals - fraction.count)
            text += fraction
        }
        return text
    }
}
