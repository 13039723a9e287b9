import Hardware
import TestSupport
import Testing

/// The E22 register codec and command parser: pure, and never trapping on any bytes.
@Suite("E22 register codec")
struct E22RegisterTests {
    @Test("the factory defaults decode to 9600 8N1, 2.4 kbps, 240-byte sub-packets, 22 dBm, WOR 2000 ms")
    func factoryDefaults() {
        let registers = E22Registers(bytes: [0x00, 0x00, 0x00, 0x62, 0x00, 0x12, 0x03, 0x00, 0x00])
        #expect(registers.baudRate == 9600)
        #expect(registers.parity == .none8N1)
        #expect(registers.airRate == .kbps2_4)
        #expect(registers.subPacketBytes == 240)
        #expect(registers.txPowerDBm == 22)
        #expect(registers.channel == 18)
        #expect(registers.worCycle == 3)
        #expect(!registers.packetRSSIEnabled)
        #expect(E22Registers().bytes == [0x00, 0x00, 0x00, 0x62, 0x00, 0x00, 0x03, 0x00, 0x00])
    }

    @Test("each field lands in its documented bits")
    func bitLayout() {
        var registers = E22Registers()
        registers.address = 0x1234
        registers.netID = 0x56
        registers.baudRate = 115_200
        registers.parity = .even8E1
        registers.airRate = .kbps62_5
        registers.subPacketBytes = 32
        registers.ambientNoiseEnabled = true
        registers.txPowerDBm = 10
        registers.channel = 80
        registers.packetRSSIEnabled = true
        registers.fixedPoint = true
        registers.relay = true
        registers.listenBeforeTalk = true
        registers.worTransmitter = true
        registers.worCycle = 7
        registers.cryptKey = 0xBEEF
        #expect(registers.bytes == [0x12, 0x34, 0x56, 0b111_10_111, 0b11_1_000_11, 80, 0xFF, 0xBE, 0xEF])
        #expect(E22Registers(bytes: registers.bytes) == registers)

        var small = E22Registers()
        small.subPacketBytes = 128
        small.txPowerDBm = 17
        #expect(small.bytes[4] == 0b01_0_000_01)
        small.subPacketBytes = 64
        small.txPowerDBm = 13
        #expect(small.bytes[4] == 0b10_0_000_10)
    }

    @Test("every value of every register decodes and re-encodes to itself")
    func roundTrip() {
        for address in 0..<E22Registers.count {
            for value in 0...255 {
                var bytes = E22Registers().bytes
                bytes[address] = UInt8(value)
                #expect(E22Registers(bytes: bytes).bytes == bytes, "register \(address) value \(value)")
            }
        }
    }

    @Test("RSSI bytes are dBm = -(256 - value); the nearest TX power is picked")
    func rssiAndPower() {
        #expect(E22Registers.dBm(rssiByte: 0xA0) == -96)
        #expect(E22Registers.dBm(rssiByte: 255) == -1)
        #expect(E22Emulator.rssiByte(dBm: -96) == 0xA0)
        #expect(E22Registers.nearestTxPower(to: 14) == 13)
        #expect(E22Registers.nearestTxPower(to: 20) == 22)
        #expect(E22Registers.nearestTxPower(to: 15) == 13)
        #expect(E22Registers.nearestTxPower(to: 0) == 10)
        #expect(E22Registers.nearestTxPower(to: 30) == 22)
    }

    @Test("commands encode as the manual gives them, and parse back")
    func commands() {
        let write = E22Command.write(address: 0, data: [1, 2, 3], persistent: true)
        #expect(write.bytes == [0xC0, 0x00, 0x03, 1, 2, 3])
        #expect(E22Command(configurationBytes: write.bytes) == write)
        #expect(E22Command.write(address: 5, data: [9], persistent: false).bytes == [0xC2, 0x05, 0x01, 9])
        #expect(E22Command(configurationBytes: [0xC1, 0x00, 0x07]) == .read(address: 0, length: 7))
        #expect(E22Command.readRSSI(address: 0, length: 2).bytes == [0xC0, 0xC1, 0xC2, 0xC3, 0x00, 0x02])
        #expect(E22Command(normalBytes: [0xC0, 0xC1, 0xC2, 0xC3, 0x00, 0x02]) == .readRSSI(address: 0, length: 2))
        // Malformed: past 08H, zero length, length disagreeing with data, unknown head.
        #expect(E22Command(configurationBytes: [0xC1, 0x05, 0x05]) == nil)
        #expect(E22Command(configurationBytes: [0xC1, 0x00, 0x00]) == nil)
        #expect(E22Command(configurationBytes: [0xC0, 0x00, 0x02, 1]) == nil)
        #expect(E22Command(configurationBytes: [0xC3, 0x00, 0x01]) == nil)
        #expect(E22Command(normalBytes: [0xC0, 0xC1, 0xC2, 0xC3, 0x01, 0x02]) == nil)
    }

    @Test("responses parse whole, wait for more, or are refused")
    func responses() {
        #expect(E22Response.parse([0xC1, 0x00, 0x02, 0xA0, 0xB0, 0x99]) == .complete(.registers(address: 0, data: [0xA0, 0xB0]), consumed: 5))
        #expect(E22Response.parse([0xC1, 0x00, 0x02, 0xA0]) == .incomplete)
        #expect(E22Response.parse([0xFF, 0xFF]) == .incomplete)
        #expect(E22Response.parse([0xFF, 0xFF, 0xFF]) == .complete(.formatError, consumed: 3))
        #expect(E22Response.parse([0xFF, 0x00]) == .invalid)
        #expect(E22Response.parse([0x42]) == .invalid)
        #expect(E22Response.parse([]) == .incomplete)
    }

    @Test("hostile bytes never trap the codec")
    func hostileBytes() async throws {
        let survived = await runCPUBound {
            var generator = SystemRandomNumberGenerator()
            var wrongSize = 0
            for _ in 0..<20_000 {
                let count = Int.random(in: 0...40, using: &generator)
                var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if Bool.random(using: &generator), !bytes.isEmpty {
                    bytes[0] = [0xC0, 0xC1, 0xC2, 0xFF].randomElement(using: &generator)!
                }
                if case let .complete(response, consumed) = E22Response.parse(bytes), consumed > bytes.count || response.bytes.count != consumed {
                    wrongSize += 1
                }
                if let command = E22Command(configurationBytes: bytes), command.bytes != bytes { wrongSize += 1 }
                if let command = E22Command(normalBytes: bytes), command.bytes != bytes { wrongSize += 1 }
                let registers = E22Registers(bytes: bytes, startAddress: Int.random(in: -20...20, using: &generator))
                if registers.bytes.count != E22Registers.count { wrongSize += 1 }
                _ = E22Registers.dBm(rssiByte: bytes.first ?? 0)
            }
            return wrongSize
        }
        #expect(survived == 0)
    }

    @Test("air rates map to LoRa settings by the documented rule, with airtime from Semtech's formula")
    func airRates() {
        let widths = [125_000, 250_000, 500_000]
        func rate(_ sf: Int, _ bw: Int) -> Double { Double(sf) * Double(bw) / Double(1 << sf) * 0.8 }
        for airRate in E22AirRate.allCases {
            let named = airRate.kilobitsPerSecond * 1_000
            let width = widths.first { rate(5, $0) >= named } ?? 500_000
            let best = (5...12).filter { rate($0, width) <= named }.max { rate($0, width) < rate($1, width) }
            #expect(airRate.bandwidthHz == width, "\(airRate)")
            #expect(airRate.spreadingFactor == best, "\(airRate)")
            #expect(airRate.nominalBitsPerSecond <= named)
        }
        #expect(E22AirRate(kilobitsPerSecond: 2.4) == .kbps2_4)
        #expect(E22AirRate(kilobitsPerSecond: 3) == nil)
        // SF9/125 kHz, CR 4/5, 8-symbol preamble, 20 bytes: 12.25 + 8 + 4·5·... symbols of 4.096 ms.
        let airtime = E22AirRate.kbps2_4.timeOnAir(bytes: 20)
        #expect(airtime > .milliseconds(100) && airtime < .milliseconds(200))
        #expect(E22AirRate.kbps0_3.timeOnAir(bytes: 240) > E22AirRate.kbps62_5.timeOnAir(bytes: 240))
    }

    @Test("channels are base + CH MHz; other frequencies name the nearest valid one")
    func bands() {
        #expect(E22Band.mhz900.channel(frequencyMHz: 868.125) == 18)
        #expect(E22Band.mhz900.channel(frequencyMHz: 869.525) == nil)
        #expect(E22Band.mhz900.nearestFrequencyMHz(to: 869.525) == 869.125)
        #expect(E22Band.mhz900.channel(frequencyMHz: 931.125) == nil)
        #expect(E22Band.mhz400.channel(frequencyMHz: 433.125) == 23)
        #expect(E22Band(frequencyMHz: 433.125) == .mhz400)
        #expect(E22Band(frequencyMHz: 915.125) == .mhz900)
        #expect(E22Band.mhz900.channel(frequencyMHz: .nan) == nil)
    }
}
