import DriftCore
import DriftMesh
import Foundation

/// The product's traffic on the mesh, one compact codec per application port
/// (`docs/mesh-bottles.md` has the byte layouts). Every decoder returns `nil` for bytes it
/// does not understand; nothing traps on hostile input.
enum BottleMeshWire {
    static let version: UInt8 = 1

    // MARK: Box info (port boxInfo)

    /// "This box exists": name, position, country and activity, broadcast now and then.
    struct BoxInfo: Equatable, Sendable {
        var name: String
        var position: GeoPoint?
        var country: CountryCode?
        var activity: Int

        var encoded: [UInt8] {
            var w = MeshByteWriter()
            w.u8(version)
            w.u16(UInt16(clamping: activity))
            w.u8((position != nil ? 1 : 0) | (country != nil ? 2 : 0))
            if let position {
                w.i32(Int32((position.latitude * 100_000).rounded()))
                w.i32(Int32((position.longitude * 100_000).rounded()))
            }
            if let country { w.raw(Array(country.rawValue.utf8.prefix(2))) }
            w.shortString(String(name.prefix(64)))
            return w.bytes
        }

        init(name: String, position: GeoPoint?, country: CountryCode?, activity: Int) {
            self.name = name
            self.position = position
            self.country = country
            self.activity = activity
        }

        init?(decoding bytes: [UInt8]) {
            var r = MeshByteReader(bytes)
            guard r.u8() == version, let activity = r.u16(), let flags = r.u8() else { return nil }
            self.activity = Int(activity)
            if flags & 1 != 0 {
                guard let lat = r.i32(), let lon = r.i32(),
                      let point = try? GeoPoint(latitude: Double(lat) / 100_000, longitude: Double(lon) / 100_000) else { return nil }
                position = point
            }
            if flags & 2 != 0 {
                guard let code = r.take(2), let text = String(validating: code, as: UTF8.self), let parsed = try? CountryCode(text) else { return nil }
                country = parsed
            }
            guard let name = r.shortString(), !name.isEmpty, r.remaining == 0 else { return nil }
            self.name = name
        }
    }

    // MARK: Bottle parcel (port bottle)

    /// A bottle travelling to the box that will host it: everything but media.
    struct Parcel: Codable, Equatable, Sendable {
        var id: BottleID
        var shareCode: ShareCode
        var creator: TokenHash
        var text: String
        var hint: String?
        var conditions: [BottleCondition]
        var expiresAt: Date
        var isOneShot: Bool
        var createdAt: Date
        var origin: BottleOrigin
        var drift: Bool

        enum CodingKeys: String, CodingKey {
            case id = "i", shareCode = "s", creator = "c", text = "t", hint = "h", conditions = "k", expiresAt = "e"
            case isOneShot = "o", createdAt = "a", origin = "g", drift = "d"
        }

        init(_ bottle: Bottle) {
            id = bottle.id
            shareCode = bottle.shareCode
            creator = bottle.creator
            text = bottle.content.text
            hint = bottle.hint
            conditions = bottle.conditions
            expiresAt = bottle.expiresAt
            isOneShot = bottle.isOneShot
            createdAt = bottle.createdAt
            origin = bottle.origin
            drift = bottle.placement == .drift
        }

        /// The bottle as its new host stores it: locked, placed here.
        func bottle(hostedBy box: BoxID) -> Bottle {
            Bottle(restoringID: id, shareCode: shareCode, placement: drift ? .drift : .manual(target: box), origin: origin,
                   content: BottleContent(text: text), creator: creator, hint: hint, conditions: conditions,
                   expiresAt: expiresAt, isOneShot: isOneShot, createdAt: createdAt, firstOpenedAt: nil, firstOpener: nil,
                   distanceTravelledMeters: nil, state: .locked, stateChangedAt: createdAt)
        }

        /// The binary layout (version 2, docs/mesh-bottles.md). Version 1 was JSON with short
        /// keys: ~350 bytes for a short bottle, 3 frames for one of 120 characters, over 5 s on
        /// the air at LongFast; version 2 puts the same bottle in 2 (docs/mesh.md, the pair
        /// benchmark). Boxes still read version 1.
        static let binaryVersion: UInt8 = 2

        var encoded: [UInt8] {
            var w = MeshByteWriter()
            w.u8(Self.binaryVersion)
            w.raw(id.bytes)
            w.shortString(shareCode.description)
            w.raw(creator.bytes)
            let conditionsJSON = conditions.isEmpty ? nil : (try? JSONEncoder().encode(conditions)).map(Array.init)
            var flags: UInt8 = 0
            if isOneShot { flags |= 1 }
            if drift { flags |= 2 }
            if hint != nil { flags |= 4 }
            if origin.position != nil { flags |= 8 }
            if origin.countryCode != nil { flags |= 16 }
            if conditionsJSON != nil { flags |= 32 }
            w.u8(flags)
            w.u64(expiresAt.timeIntervalSince1970.bitPattern)
            w.u64(createdAt.timeIntervalSince1970.bitPattern)
            w.longBytes(Array(text.utf8))
            if let hint { w.longBytes(Array(hint.utf8)) }
            w.shortString(origin.boxID.rawValue)
            if let position = origin.position {
                w.u64(position.latitude.bitPattern)
                w.u64(position.longitude.bitPattern)
            }
            if let country = origin.countryCode { w.raw(Array(country.rawValue.utf8.prefix(2))) }
            if let conditionsJSON { w.longBytes(conditionsJSON) }
            return w.bytes
        }

        init?(decoding bytes: [UInt8]) {
            switch bytes.first {
            case version?:
                guard bytes.count > 1 else { return nil }
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .secondsSince1970
                guard let parcel = try? decoder.decode(Parcel.self, from: Data(bytes.dropFirst())) else { return nil }
                self = parcel
            case Self.binaryVersion?:
                var r = MeshByteReader(bytes)
                _ = r.u8()
                guard let uuid = r.uuid(), let code = r.shortString(), let shareCode = try? ShareCode(parsing: code),
                      let creatorBytes = r.take(32), let creator = try? TokenHash(hex: creatorBytes.map { String(format: "%02x", $0) }.joined()),
                      let flags = r.u8(), flags & ~63 == 0, let expires = r.u64(), let created = r.u64(),
                      let textBytes = r.longBytes(), let text = String(validating: textBytes, as: UTF8.self) else { return nil }
                var hint: String?
                if flags & 4 != 0 {
                    guard let hintBytes = r.longBytes(), let decoded = String(validating: hintBytes, as: UTF8.self) else { return nil }
                    hint = decoded
                }
                guard let box = r.shortString(), let boxID = try? BoxID(box) else { return nil }
                var position: GeoPoint?
                if flags & 8 != 0 {
                    guard let lat = r.u64(), let lon = r.u64(),
                          let point = try? GeoPoint(latitude: Double(bitPattern: lat), longitude: Double(bitPattern: lon)) else { return nil }
                    position = point
                }
                var country: CountryCode?
                if flags & 16 != 0 {
                    guard let code = r.take(2), let text = String(validating: code, as: UTF8.self), let parsed = try? CountryCode(text) else { return nil }
                    country = parsed
                }
                var conditions: [BottleCondition] = []
                if flags & 32 != 0 {
                    guard let json = r.longBytes(), let decoded = try? JSONDecoder().decode([BottleCondition].self, from: Data(json)) else { return nil }
                    conditions = decoded
                }
                let expiresAt = Date(timeIntervalSince1970: Double(bitPattern: expires))
                let createdAt = Date(timeIntervalSince1970: Double(bitPattern: created))
                guard r.remaining == 0, expiresAt.timeIntervalSince1970.isFinite, createdAt.timeIntervalSince1970.isFinite else { return nil }
                self.id = BottleID(uuid: uuid)
                self.shareCode = shareCode
                self.creator = creator
                self.text = text
                self.hint = hint
                self.conditions = conditions
                self.expiresAt = expiresAt
                self.isOneShot = flags & 1 != 0
                self.createdAt = createdAt
                self.origin = BottleOrigin(boxID: boxID, position: position, countryCode: country)
                self.drift = flags & 2 != 0
            default:
                return nil
            }
        }
    }

    // MARK: Chat (port chat)

    /// Chat across boxes: the host announces open chats and relays lines to the boxes whose
    /// visitors it admitted; those boxes send joins, lines and leaves to the host, which
    /// answers each join (and each line from someone it did not admit) with an admission.
    enum Chat: Equatable, Sendable {
        /// What a visitor elsewhere must bring, as announced: nothing, or the password sealed
        /// to `hostKey` (the host's X25519 public key, whose hash is its node id).
        enum Access: Equatable, Sendable {
            case open
            case password(hostKey: [UInt8])
        }

        /// Host → everyone: this bottle's chat is open until `expiresAt`.
        case open(BottleID, expiresAt: Date, hint: String, access: Access)
        /// Participant's box → host; `sealedPassword`: the password sealed to the host's key.
        case join(BottleID, participant: ParticipantID, sealedPassword: [UInt8]?)
        case line(BottleID, participant: ParticipantID, language: String, text: String)
        case leave(BottleID, participant: ParticipantID)
        /// Host → participants' boxes: a line as the host stamped it.
        case relay(BottleID, message: MessageID, participant: ParticipantID, label: ParticipantLabel, sentAt: Date,
                   language: String, text: String)
        /// Host → a participant's box: the answer to a join (or to a line from someone not admitted).
        case admission(BottleID, participant: ParticipantID, verdict: RemoteAdmission)

        var bottle: BottleID {
            switch self {
            case .open(let id, _, _, _), .join(let id, _, _), .line(let id, _, _, _), .leave(let id, _),
                 .relay(let id, _, _, _, _, _, _), .admission(let id, _, _): id
            }
        }

        /// A chat line's language tag on the wire: BCP 47, at most 35 bytes; anything else is "und".
        static func languageTag(_ tag: String) -> String {
            tag.utf8.count <= 35 && !tag.isEmpty && tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) ? tag : "und"
        }

        var encoded: [UInt8] {
            var w = MeshByteWriter()
            switch self {
            case .open(let id, let expiresAt, let hint, let access):
                w.u8(1); w.raw(id.bytes); w.u32(UInt32(clamping: Int64(expiresAt.timeIntervalSince1970))); w.shortString(hint)
                switch access {
                case .open: w.u8(0)
                case .password(let key): w.u8(1); w.raw(key)
                }
            case .join(let id, let participant, let sealed):
                w.u8(2); w.raw(id.bytes); w.raw(participant.bytes); w.raw(sealed ?? [])
            case .line(let id, let participant, let language, let text):
                w.u8(6); w.raw(id.bytes); w.raw(participant.bytes); w.shortString(Self.languageTag(language)); w.raw(Array(text.utf8))
            case .leave(let id, let participant):
                w.u8(4); w.raw(id.bytes); w.raw(participant.bytes)
            case .relay(let id, let message, let participant, let label, let sentAt, let language, let text):
                w.u8(7); w.raw(id.bytes); w.raw(message.bytes); w.raw(participant.bytes)
                w.u8(UInt8(ParticipantLabel.allCases.firstIndex(of: label) ?? 4))
                w.u64(UInt64(clamping: Int64(sentAt.timeIntervalSince1970 * 1_000)))
                w.shortString(Self.languageTag(language)); w.raw(Array(text.utf8))
            case .admission(let id, let participant, let verdict):
                w.u8(8); w.raw(id.bytes); w.raw(participant.bytes)
                switch verdict {
                case .admitted: w.u8(0)
                case .refused(.passwordNeeded): w.u8(1)
                case .refused(.wrongPassword): w.u8(2)
                case .refused(.tooManyAttempts(let seconds)): w.u8(3); w.u16(UInt16(clamping: seconds))
                case .refused(.inPersonOnly): w.u8(4)
                case .refused(.chatClosed): w.u8(5)
                }
            }
            return w.bytes
        }

        /// Decodes every type; types 3 and 5 (lines without a language tag) and an open without
        /// its access byte come from boxes of an earlier version (their chats need no proof).
        init?(decoding bytes: [UInt8]) {
            var r = MeshByteReader(bytes)
            guard let type = r.u8(), let id = r.uuid().map(BottleID.init(uuid:)) else { return nil }
            switch type {
            case 1:
                guard let expires = r.u32(), let hint = r.shortString() else { return nil }
                var access = Access.open
                if r.remaining > 0 {
                    guard let kind = r.u8() else { return nil }
                    switch kind {
                    case 0: access = .open
                    case 1:
                        guard let key = r.take(32) else { return nil }
                        access = .password(hostKey: key)
                    default: return nil
                    }
                }
                guard r.remaining == 0 else { return nil }
                self = .open(id, expiresAt: Date(timeIntervalSince1970: Double(expires)), hint: hint, access: access)
            case 2:
                guard let participant = r.participant() else { return nil }
                let sealed = r.rest()
                guard sealed.isEmpty || sealed.count >= SealedToBox.overhead + 1, sealed.count <= 512 else { return nil }
                self = .join(id, participant: participant, sealedPassword: sealed.isEmpty ? nil : sealed)
            case 4:
                guard let participant = r.participant(), r.remaining == 0 else { return nil }
                self = .leave(id, participant: participant)
            case 3, 6:
                guard let participant = r.participant() else { return nil }
                let language = type == 6 ? r.shortString().map(Self.languageTag) : "und"
                guard let language, let text = String(validating: r.rest(), as: UTF8.self), !text.isEmpty else { return nil }
                self = .line(id, participant: participant, language: language, text: text)
            case 5, 7:
                guard let message = r.uuid().map(MessageID.init(uuid:)), let participant = r.participant(), let labelIndex = r.u8(),
                      Int(labelIndex) < ParticipantLabel.allCases.count, let millis = r.u64(), millis < 1 << 50 else { return nil }
                let language = type == 7 ? r.shortString().map(Self.languageTag) : "und"
                guard let language, let text = String(validating: r.rest(), as: UTF8.self) else { return nil }
                self = .relay(id, message: message, participant: participant, label: ParticipantLabel.allCases[Int(labelIndex)],
                              sentAt: Date(timeIntervalSince1970: Double(millis) / 1_000), language: language, text: text)
            case 8:
                guard let participant = r.participant(), let code = r.u8() else { return nil }
                let verdict: RemoteAdmission
                switch code {
                case 0: verdict = .admitted
                case 1: verdict = .refused(.passwordNeeded)
                case 2: verdict = .refused(.wrongPassword)
                case 3:
                    guard let seconds = r.u16() else { return nil }
                    verdict = .refused(.tooManyAttempts(retryAfterSeconds: Int(seconds)))
                case 4: verdict = .refused(.inPersonOnly)
                case 5: verdict = .refused(.chatClosed)
                default: return nil
                }
                guard r.remaining == 0 else { return nil }
                self = .admission(id, participant: participant, verdict: verdict)
            default:
                return nil
            }
        }
    }

    // MARK: Erase (port erase)

    /// "This bottle is over": every box erases what it holds of it, and relays drop the
    /// held frames that carried it (`parcel`: origin, first packet id and frame count).
    struct Erase: Equatable, Sendable {
        var bottle: BottleID
        /// Why it ended (shown to pages that listed it).
        var reason: LifecycleTrigger
        var parcel: [ParcelFrames]

        struct ParcelFrames: Equatable, Sendable {
            var origin: UInt32
            var firstPacketID: UInt32
            var frames: UInt8
        }

        var encoded: [UInt8] {
            var w = MeshByteWriter()
            w.u8(version); w.raw(bottle.bytes); w.shortString(reason.rawValue); w.u8(UInt8(min(parcel.count, 8)))
            for frames in parcel.prefix(8) { w.u32(frames.origin); w.u32(frames.firstPacketID); w.u8(frames.frames) }
            return w.bytes
        }

        init(bottle: BottleID, reason: LifecycleTrigger, parcel: [ParcelFrames]) {
            self.bottle = bottle
            self.reason = reason
            self.parcel = parcel
        }

        init?(decoding bytes: [UInt8]) {
            var r = MeshByteReader(bytes)
            guard r.u8() == version, let id = r.uuid(), let reason = r.shortString().flatMap(LifecycleTrigger.init(rawValue:)),
                  let count = r.u8(), count <= 8 else { return nil }
            bottle = BottleID(uuid: id)
            self.reason = reason
            parcel = []
            for _ in 0..<count {
                guard let origin = r.u32(), let first = r.u32(), let frames = r.u8(), frames >= 1, frames <= 16 else { return nil }
                parcel.append(ParcelFrames(origin: origin, firstPacketID: first, frames: frames))
            }
            guard r.remaining == 0 else { return nil }
        }
    }

    // MARK: Notices (port notice)

    /// A creator or watcher event from the host to the box where the creator dropped the bottle
    /// (or where visitors watch it), and a watch request the other way.
    struct Notice: Equatable, Sendable {
        enum Kind: Equatable, Sendable {
            case becameOpenable
            case firstOpen(distanceTravelledMeters: Double?)
            case participantJoined
            case linesWhileAway(count: Int)
            /// Watcher's box → host: visitors there watch this bottle (send them "openable").
            case watch
        }

        var bottle: BottleID
        var kind: Kind

        var encoded: [UInt8] {
            var w = MeshByteWriter()
            w.u8(version); w.raw(bottle.bytes)
            switch kind {
            case .becameOpenable: w.u8(1)
            case .firstOpen(let distance):
                w.u8(2)
                if let distance, distance.isFinite, distance >= 0 { w.u8(1); w.u64(distance.bitPattern) } else { w.u8(0) }
            case .participantJoined: w.u8(3)
            case .linesWhileAway(let count): w.u8(4); w.u16(UInt16(clamping: count))
            case .watch: w.u8(5)
            }
            return w.bytes
        }

        init(bottle: BottleID, kind: Kind) {
            self.bottle = bottle
            self.kind = kind
        }

        init?(decoding bytes: [UInt8]) {
            var r = MeshByteReader(bytes)
            guard r.u8() == version, let id = r.uuid(), let type = r.u8() else { return nil }
            bottle = BottleID(uuid: id)
            switch type {
            case 1: kind = .becameOpenable
            case 2:
                guard let has = r.u8() else { return nil }
                if has == 1 {
                    guard let bits = r.u64() else { return nil }
                    let distance = Double(bitPattern: bits)
                    guard distance.isFinite, distance >= 0 else { return nil }
                    kind = .firstOpen(distanceTravelledMeters: distance)
                } else {
                    kind = .firstOpen(distanceTravelledMeters: nil)
                }
            case 3: kind = .participantJoined
            case 4:
                guard let count = r.u16() else { return nil }
                kind = .linesWhileAway(count: Int(count))
            case 5: kind = .watch
            default: return nil
            }
            guard r.remaining == 0 else { return nil }
        }
    }
}

extension MeshByteReader {
    mutating func uuid() -> UUID? {
        guard let b = take(16) else { return nil }
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    mutating func participant() -> ParticipantID? {
        take(ParticipantID.byteCount).flatMap { bytes in try? ParticipantID(hex: bytes.map { String(format: "%02x", $0) }.joined()) }
    }
}
