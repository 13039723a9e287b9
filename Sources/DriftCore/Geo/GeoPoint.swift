import Foundation

/// A WGS-84 position in decimal degrees.
///
/// Latitude −90…90, longitude −180…180 (finite); use ``distance(to:)`` for the
/// great-circle distance between two points.
public struct GeoPoint: Hashable, Sendable, Codable {
    public let latitude: Double
    public let longitude: Double

    /// Mean Earth radius (IUGG), in metres, used for great-circle distances.
    public static let earthRadiusMeters = 6_371_008.8

    /// Validates the coordinate.
    /// - Throws: ``DomainValidationError`` when out of range or not finite.
    public init(latitude: Double, longitude: Double) throws(DomainValidationError) {
        guard latitude.isFinite, (-90.0...90.0).contains(latitude) else {
            throw DomainValidationError(field: "latitude", value: "\(latitude)", problem: "must be between -90 and 90")
        }
        guard longitude.isFinite, (-180.0...180.0).contains(longitude) else {
            throw DomainValidationError(field: "longitude", value: "\(longitude)", problem: "must be between -180 and 180")
        }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// For values already known to be in range (computed and clamped here).
    private init(clampedLatitude: Double, longitude: Double) {
        self.latitude = clampedLatitude
        self.longitude = longitude
    }

    private enum CodingKeys: String, CodingKey { case latitude, longitude }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let lat = try container.decode(Double.self, forKey: .latitude)
        let lon = try container.decode(Double.self, forKey: .longitude)
        do { try self.init(latitude: lat, longitude: lon) } catch {
            throw DecodingError.dataCorruptedError(forKey: .latitude, in: container, debugDescription: error.description)
        }
    }

    /// Great-circle distance in metres (haversine on a sphere of ``earthRadiusMeters``).
    ///
    /// Accurate to about 0.5 % against the ellipsoid, which is far below what the
    /// 5 km / 50 km labels and the metre-scale radius of a box need.
    public func distance(to other: GeoPoint) -> Double {
        let phi1 = latitude * .pi / 180
        let phi2 = other.latitude * .pi / 180
        let deltaPhi = (other.latitude - latitude) * .pi / 180
        let deltaLambda = (other.longitude - longitude) * .pi / 180
        let a = sin(deltaPhi / 2) * sin(deltaPhi / 2)
            + cos(phi1) * cos(phi2) * sin(deltaLambda / 2) * sin(deltaLambda / 2)
        let c = 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
        return GeoPoint.earthRadiusMeters * c
    }

    /// The point `meters` away along the initial `bearingDegrees` (0 = north), on the same sphere.
    ///
    /// Used by tests and simulators to place points at exact distances.
    public func destination(meters: Double, bearingDegrees: Double) -> GeoPoint {
        let delta = meters / GeoPoint.earthRadiusMeters
        let theta = bearingDegrees * .pi / 180
        let phi1 = latitude * .pi / 180
        let lambda1 = longitude * .pi / 180
        let phi2 = asin(sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta))
        let lambda2 = lambda1 + atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sin(phi2))
        var lon = lambda2 * 180 / .pi
        lon = (lon + 540).truncatingRemainder(dividingBy: 360) - 180
        let lat = min(90, max(-90, phi2 * 180 / .pi))
        return GeoPoint(clampedLatitude: lat, longitude: lon)
    }
}
