import DriftMesh
import TestSupport
import Testing

@Suite("Camp beacon codec (port 6)")
struct CampCodecTests {
    static let here = CampPosition(latitude: 52.47312, longitude: 13.40191)!

    static let samples: [CampMessage] = [
        .ping(nonce: 0xDEAD_BEEF),
        .announce(.init(name: "Camp Wüste", position: here, members: 42, note: "water at the blue tent")),
        .announce(.init(name: "x", position: nil, members: 0)),
        .chat(.init(camp: "Camp Wüste", text: "anyone seen a red bike?")),
        .chat(.init(camp: "", text: "hi")),
        .request(.init(resource: .water, text: "20 l please")),
        .request(.init(resource: .other, text: "")),
        .event(.init(title: "Sunset drums", startMinute: 29_000_000, durationMinutes: 90, text: "bring a drum")),
        .emergency(.init(emergency: .medical, text: "broken leg near the dune", position: here)),
        .emergency(.init(emergency: .missingPerson, text: "child, 8, blue shirt", position: nil)),
    ]

    @Test("every kind round-trips", arguments: samples)
    func roundTrip(_ message: CampMessage) throws {
        let bytes = try message.encoded()
        #expect(bytes[0] >> 4 == CampMessage.version)
        #expect(bytes[0] & 0x0F == message.kind.rawValue)
        #expect(try CampMessage(decoding: bytes) == message)
    }

    @Test("the wire bytes of an announce are as docs/camps.md says")
    func announceBytes() throws {
        let position = CampPosition(latitudeE5: 5_247_312, longitudeE5: 1_340_191)!
        let bytes = try CampMessage.announce(.init(name: "AB", position: position, members: 300, note: "n")).encoded()
        #expect(bytes == [0x11, 2, 0x41, 0x42, 0x00, 0x50, 0x11, 0x50, 0x00, 0x14, 0x73, 0x1F, 0x01, 0x2C, 1, 0x6E])
        #expect(try CampMessage.ping(nonce: 1).encoded() == [0x10, 0, 0, 0, 1])
    }

    @Test("texts at their byte limits round-trip; one byte more is refused when encoding and decoding")
    func limits() throws {
        let name = String(repeating: "é", count: 16)  // 32 bytes
        let note = String(repeating: "n", count: CampLimits.note)
        let text = String(repeating: "t", count: 158) + "ü"  // 160 bytes
        let title = String(repeating: "T", count: CampLimits.title)
        let extremes = CampPosition(latitudeE5: -9_000_000, longitudeE5: 18_000_000)!
        let big: [CampMessage] = [
            .announce(.init(name: name, position: extremes, members: .max, note: note)),
            .chat(.init(camp: name, text: text)),
            .request(.init(resource: .food, text: text)),
            .event(.init(title: title, startMinute: .max, durationMinutes: .max, text: text)),
            .emergency(.init(emergency: .other, text: text, position: extremes)),
        ]
        for message in big {
            #expect(try CampMessage(decoding: try message.encoded()) == message)
        }
        // With the port byte, every kind at its limits fits one broadcast frame (201 plaintext
        // bytes) except the largest event (218), which the mesh sends as two fragments.
        let payloads = try big.map { try $0.encoded().count + 1 }
        #expect(payloads == [110, 196, 164, 218, 172])
        #expect(throws: CampCodecError.badLength(field: "name", length: 33, allowed: 1...32)) {
            try CampMessage.announce(.init(name: name + "x", position: nil, members: 1)).encoded()
        }
        #expect(throws: CampCodecError.badLength(field: "text", length: 161, allowed: 1...160)) {
            try CampMessage.chat(.init(camp: "", text: text + "x")).encoded()
        }
        #expect(throws: CampCodecError.badLength(field: "name", length: 0, allowed: 1...32)) {
            try CampMessage.announce(.init(name: "", position: nil, members: 1)).encoded()
        }
        // A hand-made chat with a 161-byte text is refused by the decoder.
        let forged: [UInt8] = [0x12, 0, 161] + Array(repeating: 0x41, count: 161)
        #expect(throws: CampCodecError.badLength(field: "text", length: 161, allowed: 1...160)) { try CampMessage(decoding: forged) }
    }

    @Test("malformed bytes give typed errors")
    func malformed() {
        #expect(throws: CampCodecError.empty) { try CampMessage(decoding: []) }
        #expect(throws: CampCodecError.badVersion(2)) { try CampMessage(decoding: [0x20, 0, 0, 0, 0]) }
        #expect(throws: CampCodecError.badKind(9)) { try CampMessage(decoding: [0x19]) }
        #expect(throws: CampCodecError.truncated(field: "nonce")) { try CampMessage(decoding: [0x10, 0, 0]) }
        #expect(throws: CampCodecError.trailingBytes(1)) { try CampMessage(decoding: [0x10, 0, 0, 0, 0, 7]) }
        #expect(throws: CampCodecError.invalidUTF8(field: "text")) { try CampMessage(decoding: [0x12, 0, 2, 0xC3, 0x28]) }
        #expect(throws: CampCodecError.badEnum(field: "resource", value: 6)) { try CampMessage(decoding: [0x13, 6, 0]) }
        // Latitude 91°.
        #expect(throws: CampCodecError.badPosition) {
            try CampMessage(decoding: [0x15, 0, 1, 0x41, 0x00, 0x8A, 0xDA, 0xE0, 0, 0, 0, 0])
        }
    }

    @Test("positions: degrees round to 1e-5°, out of range is refused")
    func positions() {
        let p = CampPosition(latitude: -33.868_824_9, longitude: 151.209_296)!
        #expect(p.latitudeE5 == -3_386_882 && p.longitudeE5 == 15_120_930)
        #expect(CampPosition(latitude: 90.5, longitude: 0) == nil)
        #expect(CampPosition(latitude: .nan, longitude: 0) == nil)
        #expect(CampPosition(latitudeE5: 0, longitudeE5: 18_000_001) == nil)
    }

    @Test("100 000 random byte strings: typed errors or a message that re-encodes to the same bytes")
    func randomBytes() async throws {
        let (decoded, failed) = await runCPUBound {
            var generator = SeededGenerator(seed: 0xCA_4B5)
            var decoded = 0
            var failed = 0
            for round in 0..<100_000 {
                let length = Int.random(in: 0...220, using: &generator)
                var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                // Most inputs look like ours (version 1, a known kind) to reach the field decoders.
                if !round.isMultiple(of: 4), !bytes.isEmpty { bytes[0] = 0x10 | UInt8.random(in: 0...5, using: &generator) }
                // Plausible short length bytes reach the text checks.
                if round.isMultiple(of: 3), bytes.count > 2 { bytes[1] = UInt8.random(in: 0...8, using: &generator) }
                do {
                    let message = try CampMessage(decoding: bytes)
                    decoded += 1
                    if try message.encoded() != bytes { failed += 1 }
                } catch {
                    // A typed error is the expected outcome.
                }
            }
            return (decoded, failed)
        }
        #expect(failed == 0, "decoded messages must re-encode to the same bytes")
        #expect(decoded > 0, "some random inputs should decode (pings of 5 bytes at least)")
    }
}
