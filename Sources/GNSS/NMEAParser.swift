/// Turns verified sentences into ``NMEAMessage`` values.
///
/// Any talker is accepted (`GP`, `GN`, `GL`, `GA`, `GB`, `BD`, `GQ`, `QZ`, `GI`, `IN`,
/// `II`, …); the sentence type is the last three letters of the address. A numeric
/// field that does not parse is treated as absent, so one bad field does not cost
/// the rest of the sentence. Only structure that makes the whole sentence
/// meaningless (a GSV page that is not a number) is an error.
public enum NMEAParser {
    /// Parses one sentence.
    public static func parse(_ sentence: NMEASentence) throws(NMEAParseError) -> NMEAMessage {
        if sentence.isEncapsulated { return .encapsulated(address: String(sentence.address)) }
        if sentence.isProprietary { return .proprietary(address: String(sentence.address)) }
        let s = sentence
        typealias F = NMEAFieldParser
        switch s.type {
        case "GGA":
            return .gga(GGA(
                time: NMEATimeOfDay(s[1]),
                latitude: F.coordinate(s[2], s[3], limit: 90), longitude: F.coordinate(s[4], s[5], limit: 180),
                quality: F.int(s[6]), satellitesUsed: F.int(s[7]), hdop: F.double(s[8]),
                altitudeMSL: F.double(s[9]), geoidSeparation: F.double(s[11]),
                dgpsAge: F.double(s[13]), dgpsStation: F.int(s[14])))
        case "RMC":
            return .rmc(RMC(
                time: NMEATimeOfDay(s[1]), status: F.character(s[2]),
                latitude: F.coordinate(s[3], s[4], limit: 90), longitude: F.coordinate(s[5], s[6], limit: 180),
                speedKnots: F.double(s[7]), trackTrue: F.double(s[8]), date: NMEADate(ddmmyy: s[9]),
                magneticVariation: F.double(s[10]).map { s[11] == "W" ? -$0 : $0 },
                faaMode: F.character(s[12]), navigationalStatus: F.character(s[13])))
        case "GSA":
            // Fields 3…14 are satellite ids; NMEA 4.10 appends a system id after VDOP.
            let ids = (3...14).compactMap { F.int(s[$0]) }
            return .gsa(GSA(
                selection: F.character(s[1]), fixMode: F.int(s[2]), satelliteIDs: ids,
                pdop: F.double(s[15]), hdop: F.double(s[16]), vdop: F.double(s[17]),
                systemID: s.fields.count > 18 ? F.int(s[18]) : nil, fieldCount: s.fields.count))
        case "GSV":
            guard let count = F.int(s[1]), let number = F.int(s[2]) else {
                throw NMEAParseError(sentence: s.text, reason: "GSV page count or number is not a number")
            }
            // After the three header fields come groups of four; one extra field is the signal id.
            let rest = s.fields.count - 4
            let signalID = rest % 4 == 1 ? F.int(s.fields[s.fields.count - 1]) : nil
            var satellites: [GSV.Satellite] = []
            let groupsEnd = s.fields.count - (rest % 4 == 1 ? 1 : 0)
            var index = 4
            while index < groupsEnd {
                if let id = F.int(s[index]) {
                    satellites.append(GSV.Satellite(
                        id: id, elevation: F.double(s[index + 1]), azimuth: F.double(s[index + 2]), snr: F.double(s[index + 3])))
                }
                index += 4
            }
            return .gsv(GSV(messageCount: count, messageNumber: number, satellitesInView: F.int(s[3]),
                            satellites: satellites, signalID: signalID))
        case "GLL":
            return .gll(GLL(
                latitude: F.coordinate(s[1], s[2], limit: 90), longitude: F.coordinate(s[3], s[4], limit: 180),
                time: NMEATimeOfDay(s[5]), status: F.character(s[6]), faaMode: F.character(s[7])))
        case "VTG":
            // Old (NMEA 1.x) VTG has no unit letters: track, magnetic track, knots, km/h.
            if s[2] == "T" || s[2].isEmpty && s.fields.count > 8 {
                return .vtg(VTG(trackTrue: F.double(s[1]), trackMagnetic: F.double(s[3]),
                                speedKnots: F.double(s[5]), speedKmh: F.double(s[7]), faaMode: F.character(s[9])))
            }
            return .vtg(VTG(trackTrue: F.double(s[1]), trackMagnetic: F.double(s[2]),
                            speedKnots: F.double(s[3]), speedKmh: F.double(s[4]), faaMode: nil))
        case "ZDA":
            var date: NMEADate?
            if let day = F.int(s[2]), let month = F.int(s[3]), let year = F.int(s[4]) {
                date = NMEADate(year: year, month: month, day: day)
            }
            return .zda(ZDA(time: NMEATimeOfDay(s[1]), date: date, localZoneHours: F.int(s[5]), localZoneMinutes: F.int(s[6])))
        case "GNS":
            return .gns(GNS(
                time: NMEATimeOfDay(s[1]),
                latitude: F.coordinate(s[2], s[3], limit: 90), longitude: F.coordinate(s[4], s[5], limit: 180),
                modes: String(s[6]), satellitesUsed: F.int(s[7]), hdop: F.double(s[8]),
                altitudeMSL: F.double(s[9]), geoidSeparation: F.double(s[10]),
                dgpsAge: F.double(s[11]), dgpsStation: F.int(s[12]), navigationalStatus: F.character(s[13])))
        case "GST":
            return .gst(GST(time: NMEATimeOfDay(s[1]), rmsRange: F.double(s[2]), semiMajor: F.double(s[3]),
                            semiMinor: F.double(s[4]), orientation: F.double(s[5]), latitudeError: F.double(s[6]),
                            longitudeError: F.double(s[7]), altitudeError: F.double(s[8])))
        case "GBS":
            return .gbs(GBS(time: NMEATimeOfDay(s[1]), latitudeError: F.double(s[2]), longitudeError: F.double(s[3]),
                            altitudeError: F.double(s[4]), failedSatelliteID: F.int(s[5]),
                            systemID: F.int(s[9]), signalID: F.int(s[10])))
        case "TXT":
            return .txt(TXT(messageCount: F.int(s[1]), messageNumber: F.int(s[2]), textID: F.int(s[3]), text: String(s[4])))
        case "DTM":
            return .dtm(DTM(localDatum: String(s[1]), subdivision: String(s[2]),
                            latitudeOffsetMinutes: F.double(s[3]).map { s[4] == "S" ? -$0 : $0 },
                            longitudeOffsetMinutes: F.double(s[5]).map { s[6] == "W" ? -$0 : $0 },
                            altitudeOffset: F.double(s[7]), referenceDatum: String(s[8])))
        case "HDT":
            return .hdt(HDT(heading: F.double(s[1])))
        default:
            return .unsupported(address: String(s.address))
        }
    }
}
