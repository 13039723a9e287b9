import Foundation

/// The position of a stationary box: a robust average over its good fixes, and the
/// news that the box was moved.
///
/// Feed every fix with ``add(_:)``. Fixes that fail the quality gates (mode below 2D,
/// HDOP above `maximumHDOP` — a 2D fix needs an HDOP, a 3D fix without one passes —,
/// older than `maximumAge`) are ignored. The last `windowSize` good fixes form the
/// window; the estimate is the median of the window, refined by averaging the fixes
/// within `max(3 × median distance, minimumInlierRadius)` of it, so multipath jumps do
/// not pull it. It exists once the window holds `minimumFixes` fixes.
///
/// Moved: once established, `movedCount` consecutive good fixes farther than
/// `movedThreshold` metres from the estimate mean the box was moved. The window
/// restarts with those fixes and ``add(_:)`` returns ``Event/moved(from:to:distance:)``.
/// A stray fix (or a burst shorter than `movedCount`) is ignored.
public struct StablePosition: Sendable {
    /// Quality gates and the moved rule.
    public struct Settings: Sendable, Equatable {
        public var maximumHDOP: Double
        /// Seconds between the fix's time and `now` beyond which it is ignored.
        public var maximumAge: TimeInterval
        /// Metres from the estimate beyond which a fix counts towards "moved".
        public var movedThreshold: Double
        /// Consecutive far fixes that mean "moved".
        public var movedCount: Int
        /// Good fixes kept (the newest).
        public var windowSize: Int
        /// Good fixes needed before there is an estimate.
        public var minimumFixes: Int
        /// Fixes within this many metres of the median are never outliers.
        public var minimumInlierRadius: Double

        public init(maximumHDOP: Double = 5, maximumAge: TimeInterval = 30, movedThreshold: Double = 100,
                    movedCount: Int = 20, windowSize: Int = 300, minimumFixes: Int = 30, minimumInlierRadius: Double = 10) {
            precondition(windowSize > 0 && minimumFixes > 0 && minimumFixes <= windowSize && movedCount > 0,
                         "StablePosition.Settings: window \(windowSize), minimum \(minimumFixes), moved count \(movedCount)")
            self.maximumHDOP = maximumHDOP
            self.maximumAge = maximumAge
            self.movedThreshold = movedThreshold
            self.movedCount = movedCount
            self.windowSize = windowSize
            self.minimumFixes = minimumFixes
            self.minimumInlierRadius = minimumInlierRadius
        }
    }

    /// One fix as the GPS service saw it.
    public struct Sample: Sendable, Equatable {
        public var latitude: Double
        public var longitude: Double
        public var altitude: Double?
        public var mode: GNSSFix.Mode
        public var hdop: Double?
        /// When the fix was made (or received).
        public var time: Date

        public init(latitude: Double, longitude: Double, altitude: Double? = nil, mode: GNSSFix.Mode, hdop: Double?, time: Date) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
            self.mode = mode
            self.hdop = hdop
            self.time = time
        }

        /// The fix of an epoch, `nil` when it has no position.
        public init?(epoch: GNSSEpoch, time: Date) {
            guard let latitude = epoch.fix.latitude, let longitude = epoch.fix.longitude else { return nil }
            self.init(latitude: latitude, longitude: longitude, altitude: epoch.fix.altitudeMSL, mode: epoch.fix.mode,
                      hdop: epoch.sky.hdop, time: time)
        }
    }

    /// The stable position.
    public struct Estimate: Sendable, Equatable, Codable {
        public var latitude: Double
        public var longitude: Double
        /// Median MSL altitude of the window's fixes that had one.
        public var altitude: Double?
        /// Median distance of the inlying fixes from the estimate, metres (about CEP50).
        public var spread: Double
        /// Fixes in the window, and how many of them were averaged (not outliers).
        public var fixCount: Int
        public var inlierCount: Int
        /// Time of the first fix at this place (since the start or the last move).
        public var since: Date
    }

    /// What an ``add(_:)`` changed.
    public enum Event: Sendable, Equatable {
        /// The first estimate at a place.
        case established(Estimate)
        /// The box was moved `distance` metres from `from`; the estimate restarts at the new place.
        case moved(from: Estimate, to: Sample, distance: Double)
    }

    /// Why a fix did not count.
    public enum Rejection: String, Sendable {
        case noFix, weak, stale
    }

    public let settings: Settings
    public private(set) var estimate: Estimate?
    private var window: [Sample] = []
    private var far: [Sample] = []
    private var since: Date?
    /// Fixes ignored by the quality gates, per reason.
    public private(set) var rejected: [Rejection: Int] = [:]

    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Good fixes in the window.
    public var windowCount: Int { window.count }

    /// Whether `sample` passes the quality gates at `now`, or why not.
    public func check(_ sample: Sample, now: Date) -> Rejection? {
        guard sample.mode >= .twoD, sample.latitude.isFinite, sample.longitude.isFinite,
              abs(sample.latitude) <= 90, abs(sample.longitude) <= 180 else { return .noFix }
        if let hdop = sample.hdop {
            guard hdop <= settings.maximumHDOP else { return .weak }
        } else if sample.mode < .threeD {
            return .weak
        }
        guard now.timeIntervalSince(sample.time) <= settings.maximumAge else { return .stale }
        return nil
    }

    /// Adds one fix (`now` for the age gate, default the fix's own time).
    @discardableResult
    public mutating func add(_ sample: Sample, now: Date? = nil) -> Event? {
        if let rejection = check(sample, now: now ?? sample.time) {
            rejected[rejection, default: 0] += 1
            return nil
        }
        if let current = estimate {
            let distance = Self.distance(current.latitude, current.longitude, sample.latitude, sample.longitude)
            if distance > settings.movedThreshold {
                far.append(sample)
                guard far.count >= settings.movedCount else { return nil }
                let moved = far
                far = []
                window = Array(moved.suffix(settings.windowSize))
                since = moved.first?.time
                estimate = nil
                recompute()
                return .moved(from: current, to: moved[moved.count - 1], distance: distance)
            }
            far = []
        }
        if since == nil { since = sample.time }
        window.append(sample)
        if window.count > settings.windowSize { window.removeFirst(window.count - settings.windowSize) }
        let had = estimate != nil
        recompute()
        if !had, let estimate { return .established(estimate) }
        return nil
    }

    /// Forgets everything (a new receiver).
    public mutating func reset() {
        window = []
        far = []
        since = nil
        estimate = nil
    }

    private mutating func recompute() {
        guard window.count >= settings.minimumFixes, let since else {
            estimate = nil
            return
        }
        let medianLatitude = Self.median(window.map(\.latitude))
        let medianLongitude = Self.median(window.map(\.longitude))
        let distances = window.map { Self.distance(medianLatitude, medianLongitude, $0.latitude, $0.longitude) }
        let radius = max(3 * Self.median(distances), settings.minimumInlierRadius)
        var latitudeSum = 0.0, longitudeSum = 0.0, count = 0
        for (sample, distance) in zip(window, distances) where distance <= radius {
            latitudeSum += sample.latitude
            // Average longitudes as offsets from the median, so ±180° does not wrap.
            longitudeSum += Self.wrapped(sample.longitude - medianLongitude)
            count += 1
        }
        let latitude = latitudeSum / Double(count)
        let longitude = Self.wrapped(medianLongitude + longitudeSum / Double(count))
        let inlierDistances = zip(window, distances).filter { $0.1 <= radius }
            .map { Self.distance(latitude, longitude, $0.0.latitude, $0.0.longitude) }
        let altitudes = window.compactMap(\.altitude)
        estimate = Estimate(
            latitude: latitude, longitude: longitude, altitude: altitudes.isEmpty ? nil : Self.median(altitudes),
            spread: Self.median(inlierDistances), fixCount: window.count, inlierCount: count, since: since
        )
    }

    /// Metres between two points (haversine, mean Earth radius).
    public static func distance(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double) -> Double {
        let phi1 = latitude1 * .pi / 180, phi2 = latitude2 * .pi / 180
        let deltaPhi = phi2 - phi1
        let deltaLambda = wrapped(longitude2 - longitude1) * .pi / 180
        let a = sin(deltaPhi / 2) * sin(deltaPhi / 2) + cos(phi1) * cos(phi2) * sin(deltaLambda / 2) * sin(deltaLambda / 2)
        return 2 * 6_371_008.8 * atan2(a.squareRoot(), max(0, 1 - a).squareRoot())
    }

    /// `degrees` in −180…180.
    static func wrapped(_ degrees: Double) -> Double {
        var value = degrees.truncatingRemainder(dividingBy: 360)
        if value > 180 { value -= 360 }
        if value < -180 { value += 360 }
        return value
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
