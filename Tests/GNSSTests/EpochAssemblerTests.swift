import GNSS
import Testing

/// Runs sentence bodies through a decoder; returns the epochs.
private func epochs(_ bodies: [String]) -> [GNSSEpoch] {
    let text = bodies.map { checksummed($0) + "\r\n" }.joined()
    return NMEADecoder.decode(Array(text.utf8)).epochs
}

@Suite("Epoch assembly")
struct EpochAssemblerTests {
    @Test func oneEpochPerCycleMergedFromItsSentences() throws {
        let result = epochs([
            "GNRMC,223745.00,A,3806.62964,N,12237.61382,W,0.040,,110720,,,D,V",
            "GNVTG,,T,,M,0.040,N,0.075,K,D",
            "GNGGA,223745.00,3806.62964,N,12237.61382,W,2,12,0.54,83.1,M,-29.5,M,,0000",
            "GNGSA,A,3,29,20,18,16,51,13,44,26,,,,,0.99,0.54,0.83,1",
            "GNRMC,223746.00,A,3806.62965,N,12237.61380,W,0.031,,110720,,,D,V",
            "GNGGA,223746.00,3806.62965,N,12237.61380,W,2,12,0.54,83.2,M,-29.5,M,,0000",
        ])
        #expect(result.count == 2)
        let fix = try #require(result.first?.fix)
        #expect(fix.mode == .threeD)
        #expect(fix.status == .dgps)
        #expect(fix.time?.iso8601 == "2020-07-11T22:37:45.000Z")
        #expect(fix.altitudeMSL == 83.1)
        #expect(fix.geoidSeparation == -29.5)
        #expect(abs((fix.altitudeHAE ?? 0) - 53.6) < 1e-9)
        #expect(abs((fix.speed ?? 0) - 0.040 * 1852 / 3600) < 1e-12)
        #expect(result.first?.sky.pdop == 0.99)
        #expect(result.first?.sky.usedCount == 8)
        #expect(result[1].fix.time?.iso8601 == "2020-07-11T22:37:46.000Z")
    }

    @Test func noTimeUntilADateHasBeenSeen() {
        let result = epochs([
            "GNGGA,171925.00,4404.14066,N,12118.85481,W,1,12,0.91,1147.2,M,-21.3,M,,",
            "GNRMC,171926.00,A,4404.14063,N,12118.85478,W,0.117,,180315,,,A",
            "GNGGA,171926.00,4404.14063,N,12118.85478,W,1,12,0.91,1147.2,M,-21.3,M,,",
        ])
        #expect(result.count == 2)
        #expect(result[0].fix.time == nil)
        #expect(result[0].fix.mode == .threeD)
        #expect(result[1].fix.time?.iso8601 == "2015-03-18T17:19:26.000Z")
    }

    @Test func voidSentencesMeanNoFixAndNoPosition() {
        let result = epochs([
            "GPRMC,000416.984,V,36000.0000,N,72000.0000,E,0.000000,,260120,,",
            "GPGGA,000417.984,0000.0000,N,00000.0000,E,0,00,50.0,0.0,M,0.0,M,0.0,0000",
            "GPGSA,A,1,,,,,,,,,,,,,50.0,50.0,50.0",
        ])
        #expect(result.count == 2)
        for epoch in result {
            #expect(epoch.fix.mode == .noFix)
            #expect(epoch.fix.latitude == nil)
            #expect(epoch.fix.time == nil)   // a void RMC's date is not used
        }
    }

    @Test func ggaStatusValuesAndTwoDWithoutAltitude() {
        let rtk = epochs(["GNGGA,132820.50,4134.49819100,N,09345.03363938,W,4,10,0.9,278.071,M,-31.442,M,7.4,0133"])
        #expect(rtk.first?.fix.status == .rtkFixed)
        let float = epochs(["GNGGA,132820.50,4134.49819100,N,09345.03363938,W,5,10,0.9,278.071,M,-31.442,M,7.4,0133"])
        #expect(float.first?.fix.status == .rtkFloat)
        let sim = epochs(["GPGGA,125106,3854.5087,N,07726.4523,W,8,10,2.0,268.8,M,-33.9,M,,"])
        #expect(sim.first?.fix.status == .simulated)
        let noAltitude = epochs(["GPGGA,125106,3854.5087,N,07726.4523,W,1,10,2.0,,M,,M,,"])
        #expect(noAltitude.first?.fix.mode == .twoD)
        let fewSatellites = epochs(["GPGGA,125106,3854.5087,N,07726.4523,W,1,02,2.0,100.0,M,,M,,"])
        #expect(fewSatellites.first?.fix.mode == .noFix)
    }

    @Test func gsaSetsModeAndSatellitesUsed() throws {
        let result = epochs([
            "GPRMC,081425.000,A,5541.1971,N,03737.2934,E,0.39,345.22,260514,,,A",
            "GPGSA,A,2,03,19,27,,,,,,,,,,2.75,2.56,1.00",
            "GPGSV,1,1,04,03,40,083,46,19,17,308,41,27,07,344,39,14,22,228,",
        ])
        let epoch = try #require(result.first)
        #expect(epoch.fix.mode == .twoD)
        #expect(epoch.sky.satellites.count == 4)
        #expect(epoch.sky.satellites.filter(\.used).map(\.prn) == [3, 19, 27])
        #expect(epoch.sky.satellites.first { $0.prn == 14 }?.snr == nil)
    }

    @Test func constellationsAreNumberedLikeGpsd() throws {
        let result = epochs([
            "GNRMC,223745.00,A,3806.62964,N,12237.61382,W,0.040,,110720,,,D,V",
            "GLGSV,1,1,01,66,37,078,27,1",
            "GAGSV,1,1,01,05,11,185,41,7",
            "GBGSV,1,1,01,14,43,055,30,1",
            "GPGSV,1,1,02,46,45,191,43,195,30,100,20,1",
        ])
        let satellites = try #require(result.first?.sky.satellites)
        let byPRN = Dictionary(uniqueKeysWithValues: satellites.map { ($0.prn, $0) })
        #expect(byPRN[66]?.constellation == .glonass)
        #expect(byPRN[66]?.svid == 2)
        #expect(byPRN[305]?.constellation == .galileo)
        #expect(byPRN[414]?.constellation == .beidou)
        #expect(byPRN[46]?.constellation == .sbas)
        #expect(byPRN[46]?.svid == 133)
        #expect(byPRN[195]?.constellation == .qzss)
        #expect(byPRN[195]?.svid == 3)
    }

    @Test func speedIsComputedFromPositionsWhenNoSentenceGivesIt() throws {
        let result = epochs([
            "INRMC,194101,A,4426.1130,N,07140.5596,W,5.2,77.3,160906,15.8,W",
            "INGLL,4426.1130,N,07140.5579,W,194102,A",
        ])
        #expect(result.count == 2)
        // gpsd reports 2.256 m/s for this pair (humminbird-M37.log).
        #expect(abs(try #require(result[1].fix.speed) - 2.256) < 0.0005)
        #expect(result[1].fix.track == nil)
        #expect(result[1].fix.mode == .twoD)
    }

    @Test func jsonMatchesGpsdFieldNamesAndFormats() throws {
        let result = epochs([
            "GNRMC,223745.00,A,3806.62964,N,12237.61382,W,0.040,,110720,,,D,V",
            "GNGGA,223745.00,3806.62964,N,12237.61382,W,2,12,0.54,83.1,M,-29.5,M,,0000",
        ])
        let fix = try #require(result.first?.fix)
        #expect(GPSDJSON.tpv(fix) == #"{"class":"TPV","status":2,"mode":3,"time":"2020-07-11T22:37:45.000Z","lat":38.110494000,"lon":-122.626897000,"altHAE":53.6000,"altMSL":83.1000,"alt":83.1000,"speed":0.021,"geoidSep":-29.500}"#)
    }
}
