import Hardware
import Testing
import TestSupport

/// The hand-written protobuf codec for Meshtastic's serial API messages.
@Suite("Meshtastic protobuf codec")
struct MeshtasticCodecTests {
    @Test("varints, negative int32 and fixed32 have protobuf's encoding")
    func wireEncodings() throws {
        #expect(ProtobufWriter.varint(0) == [0x00])
        #expect(ProtobufWriter.varint(1) == [0x01])
        #expect(ProtobufWriter.varint(300) == [0xAC, 0x02])
        #expect(ProtobufWriter.varint(UInt64.max) == [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01])
        var writer = ProtobufWriter()
        writer.int(12, -1)
        #expect(writer.bytes == [0x60] + [UInt8](repeating: 0xFF, count: 9) + [0x01])
        var fixed = ProtobufWriter()
        fixed.fixed32(1, 0xDEAD_BEEF)
        #expect(fixed.bytes == [0x0D, 0xEF, 0xBE, 0xAD, 0xDE])
        var zigzag = ProtobufWriter()
        zigzag.sint(1, -3)
        #expect(zigzag.bytes == [0x08, 0x05])
        let field = try #require(try ProtobufReader.fields(zigzag.bytes, message: "t").first)
        #expect(field.sint64 == -3)
        let negative = try #require(try ProtobufReader.fields(writer.bytes, message: "t").first)
        #expect(negative.int32 == -1)
    }

    @Test("ToRadio members encode with mesh.proto's field numbers")
    func toRadioBytes() throws {
        #expect(MeshtasticToRadio.wantConfigID(5).encoded() == [0x18, 0x05])
        #expect(MeshtasticToRadio.disconnect.encoded() == [0x20, 0x01])
        #expect(MeshtasticToRadio.heartbeat(nonce: 0).encoded() == [0x3A, 0x00])
        #expect(MeshtasticToRadio.heartbeat(nonce: 2).encoded() == [0x3A, 0x02, 0x08, 0x02])
        let packet = MeshtasticMeshPacket(
            to: MeshtasticMeshPacket.broadcast, channel: 1,
            decoded: MeshtasticData(portnum: MeshtasticData.Port.privateApp, payload: [0xAA]), id: 0x0102_0304, hopLimit: 3)
        let bytes = MeshtasticToRadio.packet(packet).encoded()
        // field 1 (packet), then to (fixed32 field 2), channel (3), decoded (4: portnum 256, payload), id (fixed32 6), hop_limit (9)
        #expect(bytes == [0x0A, 0x16, 0x15, 0xFF, 0xFF, 0xFF, 0xFF, 0x18, 0x01, 0x22, 0x06, 0x08, 0x80, 0x02, 0x12, 0x01, 0xAA,
                          0x35, 0x04, 0x03, 0x02, 0x01, 0x48, 0x03])
        #expect(try MeshtasticToRadio.decode(bytes) == .packet(packet))
        for message in [MeshtasticToRadio.wantConfigID(0xFFFF_FFFF), .disconnect, .heartbeat(nonce: 77)] {
            #expect(try MeshtasticToRadio.decode(message.encoded()) == message)
        }
    }

    @Test("every FromRadio member this driver models survives a round trip")
    func fromRadioRoundTrip() throws {
        let packet = MeshtasticMeshPacket(
            from: 0x1234_5678, to: 0xFFFF_FFFF, channel: 2,
            decoded: MeshtasticData(portnum: 256, payload: Array(0..<233), wantResponse: true, dest: 1, source: 2, requestID: 3),
            id: 99, rxTime: 1_760_000_000, rxSNR: -7.25, hopLimit: 2, wantAck: true, priority: 64, rxRSSI: -121, hopStart: 3)
        let variants: [MeshtasticFromRadio.Variant] = [
            .packet(packet),
            .packet(MeshtasticMeshPacket(from: 1, to: 2, encrypted: [1, 2, 3], id: 4)),
            .myInfo(MeshtasticMyNodeInfo(myNodeNum: 0xFEDC_BA98, rebootCount: 4)),
            .nodeInfo(MeshtasticNodeInfo(num: 7, userID: "!00000007", longName: "Camp Süd", shortName: "CS")),
            .config(MeshtasticLoRaConfig(usePreset: true, modemPreset: 4, region: 3, hopLimit: 5, txEnabled: true, txPower: -3)),
            .config(nil),
            .logRecord("a log line"),
            .configCompleteID(0xCAFE_F00D),
            .rebooted(true),
            .channel(MeshtasticChannel(index: 3, name: "DriftBox", role: .secondary)),
            .queueStatus(MeshtasticQueueStatus(res: -2, free: 0, maxlen: 16, meshPacketID: 42)),
            .metadata(MeshtasticDeviceMetadata(firmwareVersion: "2.6.11.60ec05e", deviceStateVersion: 24, hardwareModel: 43)),
        ]
        for variant in variants {
            let message = MeshtasticFromRadio(id: 17, variant)
            #expect(try MeshtasticFromRadio(decoding: message.encoded()) == message)
        }
    }

    @Test("unknown fields of every wire type are skipped")
    func unknownFields() throws {
        var writer = ProtobufWriter()
        writer.uint(90, 123)                                   // varint
        writer.bytes += ProtobufWriter.varint(91 << 3 | 1) + [1, 2, 3, 4, 5, 6, 7, 8]  // fixed64
        writer.lengthDelimited(92, [9, 9, 9])                  // length-delimited
        writer.fixed32(93, 0x0102_0304)                        // fixed32
        writer.bytes += ProtobufWriter.varint(94 << 3 | 3)     // group 94 { field 1 = 5 } end
        writer.bytes += [0x08, 0x05]
        writer.bytes += ProtobufWriter.varint(94 << 3 | 4)
        writer.lengthDelimited(3, MeshtasticMyNodeInfo(myNodeNum: 0xABCD).encoded())
        writer.uint(1, 5)
        let message = try MeshtasticFromRadio(decoding: writer.bytes)
        #expect(message == MeshtasticFromRadio(id: 5, .myInfo(MeshtasticMyNodeInfo(myNodeNum: 0xABCD))))
        // Unknown members of FromRadio (moduleConfig, xmodem …) are reported, not errors.
        var other = ProtobufWriter()
        other.lengthDelimited(9, [0x08, 0x01])
        #expect(try MeshtasticFromRadio(decoding: other.bytes).variant == .other(9))
        // A known field with a wire type it never has is ignored like an unknown one.
        var odd = ProtobufWriter()
        odd.fixed32(1, 7)
        #expect(try MeshtasticMyNodeInfo(decoding: odd.bytes).myNodeNum == 0)
    }

    @Test("broken bytes are typed errors", arguments: [
        ([0x08], ProtobufDecodingError.Reason.truncated),
        ([0x0A, 0x05, 0x01], .truncated),
        ([0x0D, 0x01, 0x02], .truncated),
        ([0x08] + [UInt8](repeating: 0xFF, count: 11), .varintTooLong),
        ([0x0E, 0x00], .unsupportedWireType(6)),
        ([0x0C], .unsupportedWireType(4)),
        ([0x00, 0x00], .invalidFieldNumber(0)),
        ([0x0A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], .truncated),
    ] as [([UInt8], ProtobufDecodingError.Reason)])
    func brokenBytes(bytes: [UInt8], reason: ProtobufDecodingError.Reason) {
        #expect(throws: ProtobufDecodingError.self) { try MeshtasticFromRadio(decoding: bytes) }
        do {
            _ = try MeshtasticFromRadio(decoding: bytes)
        } catch {
            #expect(error.reason == reason)
        }
    }

    @Test("deeply nested groups are refused, not recursed without end")
    func deepGroups() {
        var bytes: [UInt8] = []
        for _ in 0..<40 { bytes += ProtobufWriter.varint(50 << 3 | 3) }
        #expect(throws: ProtobufDecodingError.self) { try MeshtasticFromRadio(decoding: bytes) }
    }

    @Test("random and mutated bytes never crash the decoders")
    func hostileBytes() async throws {
        let outcome = await runCPUBound { () -> (decoded: Int, failed: Int) in
            var generator = SeededGenerator(seed: 0x4D45_5348)
            var decoded = 0
            var failed = 0
            let valid = MeshtasticFromRadio(id: 3, .packet(MeshtasticMeshPacket(
                from: 1, channel: 1, decoded: MeshtasticData(portnum: 256, payload: Array(0..<60)), id: 9, rxSNR: 3, rxRSSI: -90))).encoded()
            for round in 0..<20_000 {
                var bytes: [UInt8]
                if round % 2 == 0 {
                    bytes = (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                } else {
                    bytes = valid
                    for _ in 0..<Int.random(in: 1...4, using: &generator) {
                        bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                    }
                    bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &generator)))
                }
                if (try? MeshtasticFromRadio(decoding: bytes)) != nil { decoded += 1 } else { failed += 1 }
                _ = try? MeshtasticToRadio.decode(bytes)
                var decoder = MeshtasticFrameDecoder()
                _ = decoder.push(bytes)
                _ = decoder.push([0x94, 0xC3] + bytes)
            }
            return (decoded, failed)
        }
        // Both outcomes occur: the mutations reach the decoder's paths.
        #expect(outcome.decoded > 0)
        #expect(outcome.failed > 0)
    }
}
