import DriftCore
import DriftMesh
import DriftStore
@testable import DriftDaemon
import Foundation
import TestSupport
import Testing

@Suite("Bottle traffic codecs on the mesh")
struct BottleMeshWireTests {
    static func bottle(text: String = "a note for the next box", conditions: [BottleCondition] = []) throws -> Bottle {
        let draft = BottleDraft(placement: .drift, content: BottleContent(text: text), hint: "by the oak", conditions: conditions,
                                lifetime: 3_600, isOneShot: false)
        let origin = BottleOrigin(boxID: BottlesFixtures.boxID, position: BottlesFixtures.berlin, countryCode: try CountryCode("DE"))
        return try Bottle.create(draft, id: BottlesFixtures.bottleID(7), shareCode: ShareCode.random(), origin: origin,
                                 creator: BottlesFixtures.creator, now: BottlesFixtures.start)
    }

    @Test("a parcel carries text, hint, conditions, expiry and origin; the host stores it locked and placed there")
    func parcelRoundTrip() throws {
        let password = BottleCondition(.password(try PasswordHasher(iterations: 1_000).hash("open sesame")), hint: "the magic words")
        let original = try Self.bottle(conditions: [password])
        let parcel = BottleMeshWire.Parcel(original)
        let decoded = try #require(BottleMeshWire.Parcel(decoding: parcel.encoded))
        #expect(decoded == parcel)
        let hosted = decoded.bottle(hostedBy: try BoxID("box-far"))
        #expect(hosted.id == original.id && hosted.shareCode == original.shareCode && hosted.content.text == original.content.text)
        #expect(hosted.conditions == original.conditions && hosted.hint == original.hint && hosted.origin == original.origin)
        #expect(hosted.expiresAt == original.expiresAt && hosted.state == .locked && hosted.placement == .drift)
        #expect(parcel.encoded.count < 700, "\(parcel.encoded.count) bytes")
        #expect(parcel.encoded.first == 2)
    }

    /// Version 1 parcels (JSON with short keys) from boxes not yet updated.
    static func jsonParcel(_ parcel: BottleMeshWire.Parcel) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return [1] + Array(try encoder.encode(parcel))
    }

    @Test("a version 1 parcel (JSON) still decodes; every prefix of a version 2 parcel, and one byte more, does not")
    func parcelVersions() throws {
        for bottle in [try Self.bottle(), try Self.bottle(conditions: [BottleCondition(.password(try PasswordHasher(iterations: 1_000).hash("kelp")))])] {
            let parcel = BottleMeshWire.Parcel(bottle)
            #expect(BottleMeshWire.Parcel(decoding: try Self.jsonParcel(parcel)) == parcel)
            let bytes = parcel.encoded
            for length in 0..<bytes.count { #expect(BottleMeshWire.Parcel(decoding: Array(bytes.prefix(length))) == nil) }
            #expect(BottleMeshWire.Parcel(decoding: bytes + [0]) == nil)
        }
    }

    @Test("a bottle of 120 characters with a hint travels in 2 frames to a box whose key is known (3 as JSON)")
    func parcelFrames() throws {
        let text = String(String(repeating: "the tide brought this one in ", count: 5).prefix(120))
        let parcel = BottleMeshWire.Parcel(try Self.bottle(text: text))
        let chunk = MeshFrameCodec.maxPlaintext(hasDestination: true, fragmented: true, originTagged: true)
        func frames(_ body: [UInt8]) throws -> Int { try Fragmenter.split(payload: [MeshMessage.Port.bottle.rawValue] + body, maxChunk: chunk).count }
        #expect(try frames(parcel.encoded) == 2, "\(parcel.encoded.count) bytes")
        #expect(try frames(try Self.jsonParcel(parcel)) == 3)
    }

    @Test("box info, chat, erase and notice frames round-trip")
    func roundTrips() throws {
        let info = BottleMeshWire.BoxInfo(name: "Box at the gate", position: BottlesFixtures.berlin, country: try CountryCode("DE"), activity: 7)
        let back = try #require(BottleMeshWire.BoxInfo(decoding: info.encoded))
        #expect(back.name == info.name && back.activity == 7 && back.country == info.country)
        #expect(abs(back.position!.latitude - 52.52) < 0.00001 && abs(back.position!.longitude - 13.405) < 0.00001)
        #expect(BottleMeshWire.BoxInfo(decoding: BottleMeshWire.BoxInfo(name: "x", position: nil, country: nil, activity: 0).encoded) != nil)

        let id = BottlesFixtures.bottleID(9)
        let someone = ParticipantID(visitor: BottlesFixtures.alice, bottle: id, secret: BottlesFixtures.secret)
        let hostKey = BoxKeyPair().publicKeyBytes
        let sealed = try SealedToBox.seal(Array("kelp".utf8), to: hostKey, context: [1, 2, 3])
        let chats: [BottleMeshWire.Chat] = [
            .open(id, expiresAt: Date(timeIntervalSince1970: 1_900_000_000), hint: "under the bridge", access: .open),
            .open(id, expiresAt: Date(timeIntervalSince1970: 1_900_000_000), hint: "", access: .password(hostKey: hostKey)),
            .join(id, participant: someone, sealedPassword: nil), .join(id, participant: someone, sealedPassword: sealed),
            .leave(id, participant: someone),
            .line(id, participant: someone, language: "de-DE", text: "hallo, wie geht's? 👋"),
            .relay(id, message: MessageID.make(at: BottlesFixtures.start), participant: someone, label: .sameCountry,
                   sentAt: Date(timeIntervalSince1970: 1_900_000_000.123), language: "pt-BR", text: "ok"),
            .admission(id, participant: someone, verdict: .admitted),
            .admission(id, participant: someone, verdict: .refused(.wrongPassword)),
            .admission(id, participant: someone, verdict: .refused(.tooManyAttempts(retryAfterSeconds: 297))),
            .admission(id, participant: someone, verdict: .refused(.inPersonOnly)),
        ]
        for chat in chats { #expect(BottleMeshWire.Chat(decoding: chat.encoded) == chat, "\(chat)") }
        // A hostile language tag never travels as it is.
        let odd = BottleMeshWire.Chat.line(id, participant: someone, language: "x\u{202E}evil", text: "hi")
        #expect(BottleMeshWire.Chat(decoding: odd.encoded) == .line(id, participant: someone, language: "und", text: "hi"))

        let erase = BottleMeshWire.Erase(bottle: id, reason: .countdownEnded, parcel: [.init(origin: 0xA1B2C3D4, firstPacketID: 77, frames: 3)])
        #expect(BottleMeshWire.Erase(decoding: erase.encoded) == erase)
        for kind: BottleMeshWire.Notice.Kind in [.becameOpenable, .firstOpen(distanceTravelledMeters: 1_234.5),
                                                 .firstOpen(distanceTravelledMeters: nil), .participantJoined, .linesWhileAway(count: 12)] {
            let notice = BottleMeshWire.Notice(bottle: id, kind: kind)
            #expect(BottleMeshWire.Notice(decoding: notice.encoded) == notice)
        }
    }

    @Test("an earlier version's chat frames still decode: an open without access is open to all, lines have no language")
    func earlierVersion() throws {
        let id = BottlesFixtures.bottleID(9)
        let someone = ParticipantID(visitor: BottlesFixtures.alice, bottle: id, secret: BottlesFixtures.secret)
        let open: [UInt8] = [1] + id.bytes + [0x71, 0x3F, 0xB3, 0x00] + [3] + Array("oak".utf8)
        #expect(BottleMeshWire.Chat(decoding: open) == .open(id, expiresAt: Date(timeIntervalSince1970: 0x713F_B300), hint: "oak", access: .open))
        let line: [UInt8] = [3] + id.bytes + someone.bytes + Array("hej".utf8)
        #expect(BottleMeshWire.Chat(decoding: line) == .line(id, participant: someone, language: "und", text: "hej"))
    }

    @Test("a password sealed to the host opens there only, and only for the bottle and participant it was sealed for")
    func sealedPassword() throws {
        let host = BoxKeyPair()
        let relay = BoxKeyPair()
        let id = BottlesFixtures.bottleID(9)
        let someone = ParticipantID(visitor: BottlesFixtures.alice, bottle: id, secret: BottlesFixtures.secret)
        let other = ParticipantID(visitor: BottlesFixtures.bob, bottle: id, secret: BottlesFixtures.secret)
        let context = MeshBottleService.sealContext(id, someone)
        let sealed = try SealedToBox.seal(Array("open sesame".utf8), to: host.publicKeyBytes, context: context)
        #expect(sealed.count == SealedToBox.overhead + 11)
        #expect(!sealed.windowsContain(Array("sesame".utf8)), "the password is not readable on the way")
        #expect(host.openSealed(sealed, context: context) == Array("open sesame".utf8))
        #expect(relay.openSealed(sealed, context: context) == nil, "a relay cannot open it")
        #expect(host.openSealed(sealed, context: MeshBottleService.sealContext(id, other)) == nil, "not for another participant")
        var altered = sealed
        altered[altered.count - 1] ^= 1
        #expect(host.openSealed(altered, context: context) == nil)
        #expect(throws: MeshWireError.self) { try SealedToBox.seal([1], to: [0, 1, 2], context: []) }
    }

    @Test("hostile bytes never trap a decoder, and cut or extended frames are refused")
    func hostileBytes() async throws {
        let id = BottlesFixtures.bottleID(9)
        let someone = ParticipantID(visitor: BottlesFixtures.alice, bottle: id, secret: BottlesFixtures.secret)
        let samples: [[UInt8]] = [
            BottleMeshWire.Chat.join(id, participant: someone, sealedPassword: nil).encoded,
            BottleMeshWire.Erase(bottle: id, reason: .hardExpiry, parcel: []).encoded,
            BottleMeshWire.Notice(bottle: id, kind: .linesWhileAway(count: 3)).encoded,
            BottleMeshWire.BoxInfo(name: "B", position: BottlesFixtures.berlin, country: nil, activity: 1).encoded,
        ]
        for sample in samples {
            #expect(BottleMeshWire.Chat(decoding: Array(sample.dropLast())) == nil || sample[0] == 3)
            #expect(BottleMeshWire.Erase(decoding: sample + [0]) == nil)
            #expect(BottleMeshWire.Notice(decoding: sample + [0]) == nil)
        }
        await runCPUBound {
            var generator = SeededGenerator(seed: 42)
            for round in 0..<20_000 {
                let count = Int.random(in: 0...80, using: &generator)
                var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
                if round % 3 == 0, !bytes.isEmpty { bytes[0] = 1 }
                if round % 3 == 1, !bytes.isEmpty { bytes[0] = 2 }
                _ = BottleMeshWire.BoxInfo(decoding: bytes)
                _ = BottleMeshWire.Chat(decoding: bytes)
                _ = BottleMeshWire.Erase(decoding: bytes)
                _ = BottleMeshWire.Notice(decoding: bytes)
                _ = BottleMeshWire.Parcel(decoding: bytes)
            }
        }
    }
}

@Suite("Drift placement")
struct DriftPlacementTests {
    @Test("drift picks every box, more often the busier ones (weight 1 + activity)")
    func weighted() throws {
        let boxes = (0..<3).map { index in
            MeshBox(node: NodeID(UInt32(index + 1)), name: "box \(index)", position: nil, country: nil,
                    activity: [0, 1, 8][index], lastSeen: Date())
        }
        var generator = SeededGenerator(seed: 5)
        var counts: [String: Int] = [:]
        for _ in 0..<12_000 { counts[MeshBottleService.drift(boxes, using: &generator).name, default: 0] += 1 }
        // Expected shares 1/12, 2/12, 9/12.
        #expect(abs(Double(counts["box 0"] ?? 0) / 12_000 - 1.0 / 12) < 0.02, "\(counts)")
        #expect(abs(Double(counts["box 1"] ?? 0) / 12_000 - 2.0 / 12) < 0.02, "\(counts)")
        #expect(abs(Double(counts["box 2"] ?? 0) / 12_000 - 9.0 / 12) < 0.02, "\(counts)")
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` appears anywhere in these bytes.
    func windowsContain(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<$0 + needle.count]) == needle }
    }
}
