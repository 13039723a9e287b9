import DriftCore
import Foundation
import GRDB

/// One row of `bottle`: a ``Bottle`` without its conditions (see ``ConditionRecord``).
struct BottleRecord: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "bottle"

    var id: String
    var shareCode: String
    var placement: String
    var originBoxID: String
    var originLatitude: Double?
    var originLongitude: Double?
    var originCountry: String?
    var text: String
    var image: String?
    var whisper: String?
    var creator: String
    var hint: String?
    var expiresAt: Int64
    var isOneShot: Bool
    var createdAt: Int64
    var firstOpenedAt: Int64?
    var firstOpener: String?
    var distanceTravelledMeters: Double?
    var state: String
    var stateChangedAt: Int64

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let shareCode = Column(CodingKeys.shareCode)
        static let creator = Column(CodingKeys.creator)
        static let state = Column(CodingKeys.state)
        static let createdAt = Column(CodingKeys.createdAt)
        static let expiresAt = Column(CodingKeys.expiresAt)
    }

    init(_ bottle: Bottle) throws {
        id = bottle.id.description
        shareCode = bottle.shareCode.rawValue
        placement = try StoredJSON.encode(bottle.placement)
        originBoxID = bottle.origin.boxID.rawValue
        originLatitude = bottle.origin.position?.latitude
        originLongitude = bottle.origin.position?.longitude
        originCountry = bottle.origin.countryCode?.rawValue
        text = bottle.content.text
        image = try bottle.content.image.map(StoredJSON.encode)
        whisper = try bottle.content.whisper.map(StoredJSON.encode)
        creator = bottle.creator.hex
        hint = bottle.hint
        expiresAt = StoredTime.milliseconds(bottle.expiresAt)
        isOneShot = bottle.isOneShot
        createdAt = StoredTime.milliseconds(bottle.createdAt)
        firstOpenedAt = bottle.firstOpenedAt.map(StoredTime.milliseconds)
        firstOpener = bottle.firstOpener?.hex
        distanceTravelledMeters = bottle.distanceTravelledMeters
        state = bottle.state.rawValue
        stateChangedAt = StoredTime.milliseconds(bottle.stateChangedAt)
    }

    /// Rebuilds the domain value with its conditions (already in position order).
    func bottle(conditions: [BottleCondition]) throws -> Bottle {
        func corrupt(_ column: String, _ problem: String) -> BottleStoreError {
            .corruptRow(column: "bottle.\(column)", row: id, problem: problem)
        }
        guard let bottleID = BottleID(id) else { throw corrupt("id", "not a UUID") }
        guard let bottleState = BottleState(rawValue: state) else { throw corrupt("state", state) }
        let code: ShareCode
        do throws(ShareCodeError) { code = try ShareCode(parsing: shareCode) } catch { throw corrupt("shareCode", error.description) }
        let origin: BottleOrigin
        do throws(DomainValidationError) {
            var position: GeoPoint?
            if let originLatitude, let originLongitude {
                position = try GeoPoint(latitude: originLatitude, longitude: originLongitude)
            }
            var country: CountryCode?
            if let originCountry { country = try CountryCode(originCountry) }
            origin = BottleOrigin(boxID: try BoxID(originBoxID), position: position, countryCode: country)
        } catch { throw corrupt("origin", error.description) }
        let creatorHash: TokenHash
        do throws(DomainValidationError) { creatorHash = try TokenHash(hex: creator) } catch { throw corrupt("creator", error.description) }
        var opener: ParticipantID?
        if let firstOpener {
            do throws(DomainValidationError) { opener = try ParticipantID(hex: firstOpener) } catch {
                throw corrupt("firstOpener", error.description)
            }
        }
        let content = BottleContent(
            text: text,
            image: try image.map { try StoredJSON.decode(ImageRef.self, from: $0, column: "bottle.image", row: id) },
            whisper: try whisper.map { try StoredJSON.decode(AudioRef.self, from: $0, column: "bottle.whisper", row: id) })
        return Bottle(
            restoringID: bottleID, shareCode: code,
            placement: try StoredJSON.decode(Placement.self, from: placement, column: "bottle.placement", row: id),
            origin: origin, content: content, creator: creatorHash, hint: hint, conditions: conditions,
            expiresAt: StoredTime.date(expiresAt), isOneShot: isOneShot, createdAt: StoredTime.date(createdAt),
            firstOpenedAt: firstOpenedAt.map(StoredTime.date), firstOpener: opener,
            distanceTravelledMeters: distanceTravelledMeters, state: bottleState,
            stateChangedAt: StoredTime.date(stateChangedAt))
    }
}
