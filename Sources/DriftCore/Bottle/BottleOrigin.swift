import Foundation

/// Where a bottle was dropped: the origin box, its position and country at the time.
///
/// For *nearby* bottles the origin is the hosting box. Distance-from-origin
/// conditions and the distance travelled shown at first open use ``position``.
public struct BottleOrigin: Sendable, Equatable, Codable {
    public var boxID: BoxID
    public var position: GeoPoint?
    public var countryCode: CountryCode?

    public init(boxID: BoxID, position: GeoPoint?, countryCode: CountryCode?) {
        self.boxID = boxID
        self.position = position
        self.countryCode = countryCode
    }
}
