import Foundation
import GNSS
import Testing

@Suite("GPS time and week rollover")
struct GPSTimeTests {
    static func time(_ year: Int, _ month: Int, _ day: Int, _ hh: Int = 0, _ mm: Int = 0, _ ss: Int = 0, ms: Int = 0) -> GNSSTime {
        GNSSTime(date: NMEADate(year: year, month: month, day: day)!,
                 timeOfDay: NMEATimeOfDay(milliseconds: ((hh * 60 + mm) * 60 + ss) * 1000 + ms))
    }

    static func iso(_ date: Date?) -> String {
        guard let date else { return "nil" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    static let floor2026 = GPSTime.date(of: time(2026, 1, 1))!
    static let floor2019 = GPSTime.date(of: time(2019, 1, 1))!

    @Test("the receiver's date and time of day as a Date")
    func plainDate() {
        #expect(Self.iso(GPSTime.date(of: Self.time(2015, 3, 18, 17, 19, 26, ms: 500))) == "2015-03-18T17:19:26.500Z")
        #expect(GPSTime.date(of: Self.time(2023, 2, 31)) == nil, "31 February is not a date")
    }

    @Test("neo-m8n.log's 2015-03-18: a 2026 floor moves it 1024 weeks to gpsd's 2034-11-01; a 2015 floor keeps it")
    func neoM8N() {
        let receiver = Self.time(2015, 3, 18, 17, 19, 26)
        #expect(Self.iso(GPSTime.corrected(receiver, floor: Self.floor2026)) == "2034-11-01T17:19:26.000Z")
        let floor2015 = GPSTime.date(of: Self.time(2015, 1, 1))!
        #expect(Self.iso(GPSTime.corrected(receiver, floor: floor2015)) == "2015-03-18T17:19:26.000Z")
    }

    @Test("1999-08-22 (a receiver back at week 0) becomes 2019-04-07, or 2038-11-21 with a later floor")
    func firstRollover() {
        let receiver = Self.time(1999, 8, 22, 0, 4, 27)
        #expect(Self.iso(GPSTime.corrected(receiver, floor: Self.floor2019)) == "2019-04-07T00:04:27.000Z")
        #expect(Self.iso(GPSTime.corrected(receiver, floor: Self.floor2026)) == "2038-11-21T00:04:27.000Z", "added twice")
    }

    @Test("2019-04-06 stays after a 2019 floor; a 2026 floor moves it once")
    func secondRollover() {
        let receiver = Self.time(2019, 4, 6, 23, 59, 0)
        #expect(Self.iso(GPSTime.corrected(receiver, floor: Self.floor2019)) == "2019-04-06T23:59:00.000Z")
        #expect(Self.iso(GPSTime.corrected(receiver, floor: Self.floor2026)) == "2038-11-20T23:59:00.000Z")
    }

    @Test("a date on the floor is not moved; a hostile floor does not loop")
    func edges() {
        #expect(GPSTime.corrected(Self.floor2026, floor: Self.floor2026) == Self.floor2026)
        let far = Date(timeIntervalSince1970: 1e12)
        let result = GPSTime.corrected(Self.floor2019, floor: far)
        #expect(result == Self.floor2019 + GPSTime.rolloverInterval * Double(GPSTime.maximumRollovers))
    }
}
