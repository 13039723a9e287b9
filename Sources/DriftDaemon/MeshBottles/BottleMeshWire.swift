import DriftCore
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

        var encoded: [UInt8] {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .secondsSince1970
            encoder.outputFormatting = [.sortedKeys]
            return [version] + ((try? encoder.encode(self)).map(Array.init) ?? [])
        }

        init?(decoding bytes: [UInt8]) {
            guard bytes.first == version, bytes.count > 1 else { return nil }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .secondsSince1970
            guard let parcel = try? decoder.decode(Parcel.self, from: Data(bytes.dropFirst())) else { return nil }
            self = parcel
        }
    }

    // MARK: Chat (port chat)

    /// Chat across boxes: the host announces open chats and relays lines to the boxes whose
    /// visitors joined; those boxes send joins, lines and leaves to the host.
    enum Chat: Equatable, Sendable {
        /// Host → everyone: this bottle's chat is open until `expiresAt`.
        case open(BottleID, expiresAt: Date, hint: String)
        /// Participant's box → host.
        case join(BottleID, participant: ParticipantID)
        case line(BottleID, participant: ParticipantID, text: String)
        case leave(BottleID, participant: ParticipantID)
        /// Host → participants' boxes: a line as the host stamped it.
        case relay(BottleID, message: MessageID, participant: ParticipantID, label: ParticipantLabel, sentAt: Date, text: String)

        var bottle: BottleID {
            switch self {
            case .open(let id, _, _), .join(let id, _), .line(let id, _, _), .leave(let id, _), .relay(let id, _, _, _, _, _): id
            }
        }

        var encoded: [UInt8] {
            var w = MeshByteWriter()
            switch self {
            case .open(let id, let expiresAt, let hint):
                w.u8(1); w.raw(id.bytes); w.u32(UInt32(clamping: Int64(expiresAt.timeIntervalSince1970))); w.shortString(hint)
            case .join(let id, let participant):
                w.u8(2); w.raw(id.bytes); w.raw(participant.bytes)
            case .line(let id, let participant, let text):
                w.u8(3); w.raw(id.bytes); w.raw(participant.bytes); w.raw(Array(text.utf8))
            case .leave(let id, let participant):
                w.u8(4); w.raw(id.bytes); w.raw(participant.bytes)
            case .relay(let id, let message, let participant, let label, let sentAt, let text):
                w.u8(5); w.raw(id.bytes); w.raw(message.bytes); w.raw(participant.bytes)
                w.u8(UInt8(ParticipantLabel.allCases.firstIndex(of: label) ?? 4))
                w.u64(UInt64(clamping: Int64(sentAt.timeIntervalSince1970 * 1_000))); w.raw(Array(text.utf8))
            }
            return w.bytes
        }

        init?(decoding bytes: [UInt8]) {
            var r = MeshByteReader(bytes)
            guard let type = r.u8(), let id = r.uuid().map(BottleID.init(uuid:)) else { return nil }
            switch type {
            case 1:
                guard let expires = r.u32(), let hint = r.shortString(), r.remaining == 0 else { return nil }
                self = .open(id, expiresAt: Date(timeIntervalSince1970: Double(expires)), hint: hint)
            case 2, 4:
                guard let participant = r.participant(), r.remaining == 0 else { return nil }
                self = type == 2 ? .join(id, participant: participant) : .leave(id, participant: participant)
            case 3:
                guard let participant = r.participant(), let text = String(validating: r.rest(), as: UTF8.self), !text.isEmpty else { return nil }
                self = .line(id, participant: participant, text: text)
            case 5:
                guard let message = r.uuid().map(MessageID.init(uuid:)), let participant = r.participant(), let labelIndex = r.u8(),
                      Int(labelIndex) < ParticipantLabel.allCases.count, let millis = r.u64(), millis < 1 << 50,
                      let text = String(validating: r.rest(), as: UTF8.self) else { return nil }
                self = .relay(id, message: message, participant: participant, label: ParticipantLabel.allCases[Int(labelIndex)],
                              sentAt: Date(timeIntervalSince1970: Double(millis) / 1_000), text: text)
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
