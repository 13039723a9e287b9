import Foundation

/// One line of gpsd's JSON protocol (what `?WATCH={"enable":true,"json":true};` streams),
/// read back into the types the NMEA decoder produces.
public enum GPSDReport: Sendable, Equatable {
    /// `VERSION` (the greeting), with gpsd's `release`.
    case version(release: String)
    /// `DEVICES`: the receivers gpsd knows (paths).
    case devices([String])
    /// `TPV`: a fix.
    case tpv(GNSSFix)
    /// `SKY`: DOPs and satellites used/seen.
    case sky(SkyView)
    /// Any other class (`WATCH`, `DEVICE`, `PPS`, `TOFF`, `ERROR`…).
    case other(className: String)

    /// Why a line is not a report.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var problem: String
        public var line: String
        public var description: String { "gpsd JSON: \(problem): \(line.prefix(120))" }
    }

    /// Lines longer than this are refused (gpsd's own limit is 10 240 bytes for a SKY).
    public static let maximumLineLength = 65_536

    /// Parses one JSON line.
    public static func parse(_ line: some StringProtocol) throws(ParseError) -> GPSDReport {
        let text = String(line)
        guard text.utf8.count <= maximumLineLength else { throw ParseError(problem: "line too long", line: text) }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] else {
            throw ParseError(problem: "not a JSON object", line: text)
        }
        guard let className = object["class"] as? String else { throw ParseError(problem: "no class", line: text) }
        switch className {
        case "VERSION":
            return .version(release: object["release"] as? String ?? "")
        case "DEVICES":
            let devices = object["devices"] as? [[String: Any]] ?? []
            return .devices(devices.compactMap { $0["path"] as? String })
        case "TPV":
            return .tpv(fix(object))
        case "SKY":
            return .sky(sky(object))
        default:
            return .other(className: className)
        }
    }

    static func number(_ object: [String: Any], _ key: String) -> Double? {
        guard let value = object[key] as? NSNumber else { return nil }
        let double = value.doubleValue
        return double.isFinite ? double : nil
    }

    static func fix(_ object: [String: Any]) -> GNSSFix {
        var fix = GNSSFix()
        fix.mode = number(object, "mode").flatMap { GNSSFix.Mode(rawValue: Int($0)) } ?? .notSeen
        // gpsd omits `status` for a plain GPS fix.
        fix.status = number(object, "status").flatMap { GNSSFix.Status(rawValue: Int($0)) } ?? (fix.mode >= .twoD ? .gps : .unknown)
        fix.time = (object["time"] as? String).flatMap(time(iso8601:))
        if let latitude = number(object, "lat"), let longitude = number(object, "lon"),
           abs(latitude) <= 90, abs(longitude) <= 180 {
            fix.latitude = latitude
            fix.longitude = longitude
        }
        fix.altitudeMSL = number(object, "altMSL") ?? number(object, "alt")
        fix.geoidSeparation = number(object, "geoidSep")
        if fix.geoidSeparation == nil, let hae = number(object, "altHAE"), let msl = fix.altitudeMSL {
            fix.geoidSeparation = hae - msl
        }
        fix.speed = number(object, "speed")
        fix.track = number(object, "track")
        fix.magneticTrack = number(object, "magtrack")
        fix.magneticVariation = number(object, "magvar")
        return fix
    }

    static func sky(_ object: [String: Any]) -> SkyView {
        var sky = SkyView()
        sky.hdop = number(object, "hdop")
        sky.vdop = number(object, "vdop")
        sky.pdop = number(object, "pdop")
        if let used = number(object, "uSat") {
            sky.usedCount = Int(used)
        } else if let satellites = object["satellites"] as? [[String: Any]] {
            sky.usedCount = satellites.filter { $0["used"] as? Bool == true }.count
        }
        return sky
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fff]Z` → date and time of day.
    public static func time(iso8601 text: String) -> GNSSTime? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              let year = Int(String(decoding: bytes[0..<4], as: UTF8.self)),
              let month = Int(String(decoding: bytes[5..<7], as: UTF8.self)),
              let day = Int(String(decoding: bytes[8..<10], as: UTF8.self)),
              let date = NMEADate(year: year, month: month, day: day)
        else { return nil }
        // hhmmss[.fff] is exactly what NMEA's time field looks like.
        let clock = String(decoding: bytes[11..<13] + bytes[14..<16] + bytes[17..<(bytes.count - 1)], as: UTF8.self)
        guard let timeOfDay = NMEATimeOfDay(Substring(clock)) else { return nil }
        return GNSSTime(date: date, timeOfDay: timeOfDay)
    }
}
