import Sensors
import TestSupport
import Testing

@Suite("DS18B20")
struct DS18B20Tests {
    @Test func parsesRoomTemperature() throws {
        let text = "72 01 4b 46 7f ff 0e 10 57 : crc=57 YES\n72 01 4b 46 7f ff 0e 10 57 t=23125\n"
        let reading = try DS18B20.parse(text)
        #expect(reading.milliCelsius == 23125)
        #expect(reading.celsius == 23.125)
        #expect(reading.scratchpad.count == 9)
    }

    @Test func parsesNegativeTemperature() throws {
        let text = "5e ff 4b 46 7f ff 02 10 b6 : crc=b6 YES\n5e ff 4b 46 7f ff 02 10 b6 t=-10125\n"
        #expect(try DS18B20.parse(text).milliCelsius == -10125)
    }

    @Test func crcNoIsRejected() {
        let text = "72 01 4b 46 7f ff 0e 10 56 : crc=57 NO\n72 01 4b 46 7f ff 0e 10 56 t=23125\n"
        #expect(throws: DS18B20Error.crcMismatch(line: "72 01 4b 46 7f ff 0e 10 56 : crc=57 NO")) { try DS18B20.parse(text) }
    }

    @Test func crcIsCheckedAgainEvenIfKernelSaysYes() {
        // A bit flipped in byte 0 but a YES verdict (e.g. a text from an older kernel bug).
        let text = "73 01 4b 46 7f ff 0e 10 57 : crc=57 YES\n73 01 4b 46 7f ff 0e 10 57 t=23187\n"
        #expect(throws: DS18B20Error.self) { try DS18B20.parse(text) }
    }

    @Test func vanishedSensorReadsZeros() {
        let text = "00 00 00 00 00 00 00 00 00 : crc=00 YES\n00 00 00 00 00 00 00 00 00 t=0\n"
        #expect(throws: DS18B20Error.noSensor) { try DS18B20.parse(text) }
    }

    @Test func powerOnResetValueIsRejected() {
        let text = "50 05 4b 46 7f ff 0c 10 1c : crc=1c YES\n50 05 4b 46 7f ff 0c 10 1c t=85000\n"
        #expect(throws: DS18B20Error.powerOnReset) { try DS18B20.parse(text) }
    }

    @Test(arguments: [
        "",
        "72 01 4b 46 7f ff 0e 10 57 : crc=57 YES\n",
        "72 01 4b 46 7f ff 0e 10 57 : crc=57 MAYBE\n72 01 4b 46 7f ff 0e 10 57 t=23125\n",
        "72 01 4b 46 7f ff 0e 10 57 : crc=57 YES\n72 01 4b 46 7f ff 0e 10 57 t=abc\n",
        "72 01 4b 46 7f ff 0e 10 57 : crc=57 YES\n72 01 4b 46 7f ff 0e 10 57\n",
        "72 01 zz 46 7f ff 0e 10 57 : crc=57 YES\n72 01 4b 46 7f ff 0e 10 57 t=23125\n",
        "72 01 4b : crc=57 YES\nt=23125\n",
        "\u{0}\u{1}garbage\n\n\n",
    ])
    func malformedTextIsATypedError(_ text: String) {
        #expect(throws: DS18B20Error.self) { try DS18B20.parse(text) }
    }

    @Test func outOfRangeIsRejected() {
        let text = "72 01 4b 46 7f ff 0e 10 57 : crc=57 YES\n72 01 4b 46 7f ff 0e 10 57 t=130000\n"
        #expect(throws: DS18B20Error.outOfRange(milliCelsius: 130_000)) { try DS18B20.parse(text) }
    }

    @Test func crc8MatchesDallasCheckValue() {
        // ROM code example from Maxim application note 27: CRC of 02 1C B8 01 00 00 00 is A2.
        #expect(DS18B20.crc8([0x02, 0x1C, 0xB8, 0x01, 0x00, 0x00, 0x00]) == 0xA2)
    }

    @Test func discoversAndReadsDeviceFiles() throws {
        let directory = try TemporaryDirectory(prefix: "w1")
        defer { directory.remove() }
        let fm = FileManagerShim()
        try fm.write("72 01 4b 46 7f ff 0e 10 57 : crc=57 YES\n72 01 4b 46 7f ff 0e 10 57 t=23125\n",
                     to: directory.appending("28-0316a2794aff/w1_slave"))
        try fm.write("", to: directory.appending("w1_bus_master1/uevent"))
        let paths = DS18B20.devicePaths(in: directory.path)
        #expect(paths == [directory.appending("28-0316a2794aff/w1_slave")])
        #expect(try DS18B20.read(path: paths[0]).milliCelsius == 23125)
        #expect(throws: DS18B20Error.self) { try DS18B20.read(path: directory.appending("28-missing/w1_slave")) }
        #expect(DS18B20.devicePaths(in: directory.appending("absent")).isEmpty)
    }
}
