/// A position as the camp protocol carries it: latitude and longitude in 1e-5 degrees
/// (about 1 m) as signed 32-bit integers. `Int32.min` in both fields means "no position".
public struct CampPosition: Sendable, Hashable {
    /// Latitude, 1e-5 degrees (−9 000 000…9 000 000).
    public var latitudeE5: Int32
    /// Longitude, 1e-5 degrees (−18 000 000…18 000 000).
    public var longitudeE5: Int32

    /// `nil` when either value is outside its range.
    public init?(latitudeE5: Int32, longitudeE5: Int32) {
        guard (-9_000_000...9_000_000).contains(latitudeE5), (-18_000_000...18_000_000).contains(longitudeE5) else { return nil }
        self.latitudeE5 = latitudeE5
        self.longitudeE5 = longitudeE5
    }

    /// Rounds degrees to the nearest 1e-5°; `nil` for values outside ±90 / ±180 or not finite.
    public init?(latitude: Double, longitude: Double) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        self.init(latitudeE5: Int32((latitude * 100_000).rounded()), longitudeE5: Int32((longitude * 100_000).rounded()))
    }

    public var latitude: Double { Double(latitudeE5) / 100_000 }
    public var longitude: Double { Double(longitudeE5) / 100_000 }

    /// The "no position" marker on the wire.
    static let absent = Int32.min
}
