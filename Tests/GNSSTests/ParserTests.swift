import GNSS
import Testing

/// Builds a sentence with a correct checksum from its body (without `$` and `*hh`).
func sentence(_ body: String, start: Character = "$") throws -> NMEASentence {
    try #require(NMEASentence.parse(checksummed(body, start: start)))
}

/// `body` with start character and a correct `*hh`.
func checksummed(_ body: String, start: Character = "$") -> String {
    var sum: UInt8 = 0
    for byte in body.utf8 { sum ^= byte }
    let hex = String(sum, radix: 16, uppercase: true)
    return "\(start)\(body)*\(hex.count == 1 ? "0" + hex : hex)"
}

private func parse(_ body: String) throws -> NMEAMessage {
    try NMEAParser.parse(sentence(body))
}

@Suite("NMEA sentence parsing")
struct ParserTests {
    @Test func gga() throws {
        guard case .gga(let m) = try parse("GNGGA,223745.00,3806.62964,N,12237.61382,W,2,12,0.54,83.1,M,-29.5,M,,0000") else {
            Issue.record("not GGA"); return
        }
        #expect(m.time == NMEATimeOfDay(milliseconds: (22 * 3600 + 37 * 60 + 45) * 1000))
        #expect(abs((m.latitude ?? 0) - 38.110494) < 1e-9)
        #expect(abs((m.longitude ?? 0) + 122.626897) < 1e-9)
        #expect(m.quality == 2)
        #expect(m.satellitesUsed == 12)
        #expect(m.hdop == 0.54)
        #expect(m.altitudeMSL == 83.1)
        #expect(m.geoidSeparation == -29.5)
        #expect(m.dgpsStation == 0)
    }

    @Test func highPrecisionCoordinates() throws {
        guard case .gga(let m) = try parse("GNGGA,132820.50,4134.49819100,N,09345.03363938,W,2,10,0.9,278.071,M,-31.442,M,7.4,0133") else {
            Issue.record("not GGA"); return
        }
        #expect(abs((m.latitude ?? 0) - (41 + 34.498191 / 60)) < 1e-12)
        #expect(abs((m.longitude ?? 0) + (93 + 45.03363938 / 60)) < 1e-12)
        #expect(m.dgpsAge == 7.4)
        #expect(m.dgpsStation == 133)
    }

    @Test func rmcWithNMEA41Fields() throws {
        guard case .rmc(let m) = try parse("GNRMC,223745.00,A,3806.62964,N,12237.61382,W,0.040,,110720,13.4,W,D,V") else {
            Issue.record("not RMC"); return
        }
        #expect(m.status == "A")
        #expect(m.speedKnots == 0.040)
        #expect(m.trackTrue == nil)
        #expect(m.date == NMEADate(year: 2020, month: 7, day: 11))
        #expect(m.magneticVariation == -13.4)
        #expect(m.faaMode == "D")
        #expect(m.navigationalStatus == "V")
    }

    @Test func malformedFieldsAreAbsentNotFatal() throws {
        guard case .rmc(let m) = try parse("GPRMC,000231.099,A,4829.0005,N,00022.0015,E,0.15,212.28,2208-1,,,A") else {
            Issue.record("not RMC"); return
        }
        #expect(m.date == nil)
        #expect(m.latitude != nil)
        #expect(NMEATimeOfDay("12x456") == nil)
        #expect(NMEATimeOfDay("256000") == nil)
    }

    @Test func gsaWithSystemID() throws {
        guard case .gsa(let m) = try parse("GNGSA,A,3,82,73,74,67,81,83,68,,,,,,0.99,0.54,0.83,2") else {
            Issue.record("not GSA"); return
        }
        #expect(m.fixMode == 3)
        #expect(m.satelliteIDs == [82, 73, 74, 67, 81, 83, 68])
        #expect(m.pdop == 0.99)
        #expect(m.vdop == 0.83)
        #expect(m.systemID == 2)
    }

    @Test func gsvWithAndWithoutSignalID() throws {
        guard case .gsv(let v41) = try parse("GPGSV,4,4,16,29,46,133,43,44,45,171,45,46,45,191,43,51,43,156,43,1") else {
            Issue.record("not GSV"); return
        }
        #expect(v41.signalID == 1)
        #expect(v41.satellites.map(\.id) == [29, 44, 46, 51])
        guard case .gsv(let old) = try parse("GLGSV,3,3,10,83,27,309,29,84,01,353,") else {
            Issue.record("not GSV"); return
        }
        #expect(old.signalID == nil)
        #expect(old.satellites.count == 2)
        #expect(old.satellites[1].snr == nil)
        #expect(old.satellites[1].azimuth == 353)
        #expect(throws: NMEAParseError.self) { try parse("GPGSV,x,1,10") }
    }

    @Test func otherStandardSentences() throws {
        guard case .gll(let gll) = try parse("GNGLL,4404.14066,N,12118.85481,W,171925.00,A,A") else { Issue.record("GLL"); return }
        #expect(gll.status == "A")
        guard case .vtg(let vtg) = try parse("GPVTG,330.63,T,345.26,M,0.00,N,0.00,K,A") else { Issue.record("VTG"); return }
        #expect(vtg.trackTrue == 330.63)
        #expect(vtg.trackMagnetic == 345.26)
        guard case .zda(let zda) = try parse("GPZDA,193913.00,07,09,2018,00,00") else { Issue.record("ZDA"); return }
        #expect(zda.date == NMEADate(year: 2018, month: 9, day: 7))
        guard case .gns(let gns) = try parse("GNGNS,051347.00,6001.336799,N,03014.169008,E,AAN,09,0.9,16.5,18.0,,,V") else { Issue.record("GNS"); return }
        #expect(gns.modes == "AAN")
        #expect(gns.altitudeMSL == 16.5)
        #expect(gns.navigationalStatus == "V")
        guard case .gst(let gst) = try parse("GPGST,150123.000,12.3,4.5,3.2,45.0,2.1,3.3,5.5") else { Issue.record("GST"); return }
        #expect(gst.altitudeError == 5.5)
        guard case .gbs(let gbs) = try parse("GNGBS,223746.00,1.1,1.0,2.2,,,,,,") else { Issue.record("GBS"); return }
        #expect(gbs.latitudeError == 1.1)
        guard case .txt(let txt) = try parse("GNTXT,01,01,02,ANTSTATUS=OK") else { Issue.record("TXT"); return }
        #expect(txt.text == "ANTSTATUS=OK")
        guard case .dtm(let dtm) = try parse("GPDTM,W84,,0.0,N,0.0,E,0.0,W84") else { Issue.record("DTM"); return }
        #expect(dtm.localDatum == "W84")
        guard case .hdt(let hdt) = try parse("GPHDT,123.4,T") else { Issue.record("HDT"); return }
        #expect(hdt.heading == 123.4)
    }

    @Test func talkersProprietaryAndAIS() throws {
        for talker in ["GP", "GN", "GL", "GA", "GB", "BD", "GQ", "QZ", "GI", "IN"] {
            let s = try sentence("\(talker)GLL,4404.14066,N,12118.85481,W,171925.00,A,A")
            #expect(s.talker.map(String.init) == talker)
            guard case .gll = try NMEAParser.parse(s) else { Issue.record("\(talker)GLL"); continue }
        }
        #expect(try parse("PMTK001,604,3") == .proprietary(address: "PMTK001"))
        #expect(try parse("PSTMANTENNASTATUS,0,0,0,0") == .proprietary(address: "PSTMANTENNASTATUS"))
        #expect(try parse("GPRMB,V,,,,,,,,,,,,A,S") == .unsupported(address: "GPRMB"))
        #expect(try NMEAParser.parse(try sentence("AIVDM,1,1,,B,339FEj5P00PIwujN?fQv4?wPRD5:,0", start: "!")) == .encapsulated(address: "AIVDM"))
    }
}
