import Foundation
import GNSS

/// Compares our decoding of one capture with gpsd's expected output (`X.log.chk`).
///
/// gpsd may emit several TPVs per receiver cycle (one per sentence until it learns
/// the cycle's last sentence). Its TPVs are grouped by the time of day of the last
/// sentence before them that carried one; the last TPV of a group is gpsd's
/// epoch, compared with our epoch of the same time of day.
///
/// When gpsd's last TPV of a cycle came before some of that cycle's sentences (it
/// reported before the cycle ended and never reported again), fields gpsd does not
/// have yet but we do (from those later sentences) are not counted against us;
/// `earlyReports` counts these cycles.
struct GPSDConformance {
    struct Disagreement: CustomStringConvertible {
        var key: String
        var field: String
        var gpsd: String
        var ours: String
        var description: String { "\(key) \(field): gpsd \(gpsd), ours \(ours)" }
    }

    var log: String
    var gpsdSentences: [String] = []
    var ourSentences: [String] = []
    var epochsCompared = 0
    var agreeing = 0
    var disagreements: [Disagreement] = []
    /// Epochs (distinct disagreeing keys).
    var disagreeingEpochs = 0
    /// gpsd cycles whose last TPV preceded some of the cycle's sentences.
    var earlyReports = 0

    var sentencesAgree: Bool { gpsdSentences == ourSentences }

    init(logPath: String) throws {
        log = (logPath as NSString).lastPathComponent
        let logBytes = try Data(contentsOf: URL(fileURLWithPath: logPath))
        let check = try Data(contentsOf: URL(fileURLWithPath: logPath + ".chk"))
        let decoded = NMEADecoder.decode(logBytes)
        ourSentences = decoded.sentences.map(\.text)

        // gpsd's epochs: last TPV per run of the same sentence time of day.
        var groups: [(key: NMEATimeOfDay?, tpv: [String: Any], early: Bool)] = []
        var lastKey: NMEATimeOfDay?
        var openKey: NMEATimeOfDay?? = .none
        for rawLine in check.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            var line = String(decoding: rawLine, as: UTF8.self)
            if line.hasSuffix("\r") { line.removeLast() }
            if line.hasPrefix("$") || line.hasPrefix("!") {
                gpsdSentences.append(line)
                if let sentence = NMEASentence.parse(line), let message = try? NMEAParser.parse(sentence),
                   let time = Self.timeOfDay(message) {
                    lastKey = time
                }
                if let last = groups.last, last.key == lastKey { groups[groups.count - 1].early = true }
            } else if line.hasPrefix("{\"class\":\"TPV\"") {
                guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
                if case .some(let key) = openKey, key == lastKey, !groups.isEmpty {
                    groups[groups.count - 1].tpv = object
                    groups[groups.count - 1].early = false
                } else {
                    groups.append((lastKey, object, false))
                    openKey = .some(lastKey)
                }
            }
        }

        var searchFrom = 0
        for group in groups {
            epochsCompared += 1
            let keyText = group.key.map { "\($0)" } ?? "(no time)"
            guard let index = decoded.epochs[searchFrom...].firstIndex(where: { $0.timeOfDay == group.key }) else {
                disagreements.append(Disagreement(key: keyText, field: "epoch", gpsd: "present", ours: "missing"))
                disagreeingEpochs += 1
                continue
            }
            searchFrom = index
            let before = disagreements.count
            if group.early { earlyReports += 1 }
            compare(decoded.epochs[index].fix, with: group.tpv, key: keyText, early: group.early)
            if disagreements.count == before { agreeing += 1 } else { disagreeingEpochs += 1 }
        }
    }

    private static func timeOfDay(_ message: NMEAMessage) -> NMEATimeOfDay? {
        switch message {
        case .gga(let m): m.time
        case .rmc(let m): m.time
        case .gll(let m): m.time
        case .gns(let m): m.time
        case .zda(let m): m.time
        default: nil
        }
    }

    private mutating func compare(_ fix: GNSSFix, with tpv: [String: Any], key: String, early: Bool) {
        func number(_ name: String) -> Double? { (tpv[name] as? NSNumber)?.doubleValue }
        func check(_ field: String, _ gpsd: Double?, _ ours: Double?, tolerance: Double) {
            switch (gpsd, ours) {
            case (nil, nil): return
            case let (g?, o?) where abs(g - o) <= tolerance: return
            case (nil, _?) where early: return
            default:
                disagreements.append(Disagreement(key: key, field: field, gpsd: gpsd.map { "\($0)" } ?? "absent", ours: ours.map { "\($0)" } ?? "absent"))
            }
        }
        let gpsdMode = Int(number("mode") ?? 0)
        if gpsdMode != fix.mode.rawValue {
            disagreements.append(Disagreement(key: key, field: "mode", gpsd: "\(gpsdMode)", ours: "\(fix.mode.rawValue)"))
        }
        let gpsdStatus = Int(number("status") ?? 1)
        let ourStatus = max(fix.status.rawValue, 1)
        if max(gpsdStatus, 1) != ourStatus {
            disagreements.append(Disagreement(key: key, field: "status", gpsd: "\(gpsdStatus)", ours: "\(fix.status.rawValue)"))
        }
        let gpsdTime = tpv["time"] as? String
        if gpsdTime != fix.time?.iso8601, !(early && gpsdTime == nil) {
            disagreements.append(Disagreement(key: key, field: "time", gpsd: gpsdTime ?? "absent", ours: fix.time?.iso8601 ?? "absent"))
        }
        check("lat", number("lat"), fix.latitude, tolerance: 2e-7)
        check("lon", number("lon"), fix.longitude, tolerance: 2e-7)
        check("altMSL", number("altMSL"), fix.altitudeMSL, tolerance: 0.00051)
        check("speed", number("speed"), fix.speed, tolerance: 0.00051)
        check("track", number("track"), fix.track, tolerance: 0.00051)
    }
}
