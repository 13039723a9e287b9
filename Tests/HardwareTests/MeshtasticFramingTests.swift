import Hardware
import Testing

/// The serial API's `0x94 0xC3` + length framing and the debug text between frames.
@Suite("Meshtastic serial framing")
struct MeshtasticFramingTests {
    @Test("a frame is 0x94 0xC3, the big-endian length and the protobuf; more than 512 bytes is refused")
    func framing() throws {
        #expect(try MeshtasticFraming.frame([0x18, 0x05]) == [0x94, 0xC3, 0x00, 0x02, 0x18, 0x05])
        let large = try MeshtasticFraming.frame([UInt8](repeating: 7, count: 512))
        #expect(Array(large.prefix(4)) == [0x94, 0xC3, 0x02, 0x00])
        #expect(throws: MeshtasticFraming.PayloadTooLarge(count: 513)) { try MeshtasticFraming.frame([UInt8](repeating: 7, count: 513)) }
        #expect(MeshtasticFraming.wakeSequence == [UInt8](repeating: 0xC3, count: 32))
    }

    @Test("frames and log lines come out in order, however the bytes are split")
    func splitAnywhere() throws {
        let one = MeshtasticFromRadio(id: 1, .configCompleteID(9)).encoded()
        let two = MeshtasticFromRadio(id: 2, .rebooted(true)).encoded()
        let stream = Array("INFO  | booting\r\n".utf8) + (try MeshtasticFraming.frame(one))
            + Array("DEBUG | half a li".utf8) + (try MeshtasticFraming.frame(two)) + Array("ne\n\n".utf8)
        let expected: [MeshtasticFrameDecoder.Event] = [.logLine("INFO  | booting"), .frame(one), .frame(two), .logLine("DEBUG | half a line")]
        for chunk in [1, 2, 3, 5, 7, stream.count] {
            var decoder = MeshtasticFrameDecoder()
            var events: [MeshtasticFrameDecoder.Event] = []
            var index = 0
            while index < stream.count {
                events += decoder.push(Array(stream[index..<min(stream.count, index + chunk)]))
                index += chunk
            }
            #expect(events == expected, "chunks of \(chunk)")
            #expect(decoder.frames == 2)
            #expect(decoder.logLines == 2)
        }
    }

    @Test("a header with a length over 512 resyncs on the next real frame")
    func badLength() throws {
        let payload = MeshtasticFromRadio(id: 1, .configCompleteID(7)).encoded()
        var decoder = MeshtasticFrameDecoder()
        let events = decoder.push([0x94, 0xC3, 0x7F, 0xFF] + (try MeshtasticFraming.frame(payload)))
        #expect(events.contains(.frame(payload)))
        #expect(decoder.badLengths == 1)
        #expect(decoder.frames == 1)
    }

    @Test("a lone 0x94 or the wake bytes are log noise, not frames")
    func loneStartByte() throws {
        var decoder = MeshtasticFrameDecoder()
        let events = decoder.push([0x41, 0x94, 0x42, 0x0A] + MeshtasticFraming.wakeSequence + [0x0A])
        #expect(decoder.frames == 0)
        #expect(events.count == 2)
    }

    @Test("an endless log line is cut, memory stays bounded")
    func longLine() {
        var decoder = MeshtasticFrameDecoder()
        let events = decoder.push([UInt8](repeating: 0x41, count: 5_000))
        #expect(events.count == 4)
        #expect(decoder.logLines == 4)
    }

    @Test("the USB ids of common Meshtastic boards are recognised")
    func portFinder() {
        func port(_ path: String, _ vendor: UInt16?, _ product: UInt16?) -> SerialPortInfo {
            SerialPortInfo(path: path, transport: vendor == nil ? .native : .usb, usbVendorID: vendor, usbProductID: product)
        }
        #expect(MeshtasticPortFinder.matches(port("/dev/ttyUSB0", 0x10C4, 0xEA60)))
        #expect(MeshtasticPortFinder.matches(port("/dev/ttyUSB0", 0x1A86, 0x7523)))
        #expect(MeshtasticPortFinder.matches(port("/dev/ttyACM0", 0x1A86, 0x55D4)))
        #expect(MeshtasticPortFinder.matches(port("/dev/ttyACM0", 0x303A, 0x1001)))
        #expect(MeshtasticPortFinder.matches(port("/dev/ttyACM0", 0x239A, 0x8029)))
        #expect(!MeshtasticPortFinder.matches(port("/dev/ttyACM0", 0x303A, 0x0002)))
        #expect(!MeshtasticPortFinder.matches(port("/dev/ttyUSB0", 0x0403, 0x6001)))
        #expect(!MeshtasticPortFinder.matches(port("/dev/ttyAMA0", nil, nil)))
        let found = MeshtasticPortFinder.find(in: [
            port("/dev/ttyUSB1", 0x0403, 0x6001), port("/dev/ttyUSB0", 0x10C4, 0xEA60), port("/dev/ttyAMA0", nil, nil),
        ])
        #expect(found?.path == "/dev/ttyUSB0")
        #expect(MeshtasticPortFinder.find(in: [port("/dev/ttyAMA0", nil, nil)]) == nil)
    }
}
