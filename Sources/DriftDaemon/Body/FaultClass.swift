/// A class of fault the status LED shows as a blink code. The raw value is
/// the code (number of flashes); when several are present the lowest code is
/// shown, so the order is also the priority.
public enum FaultClass: Int, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    /// The configuration or board profile did not load or validate.
    case configError = 1
    /// The data directory or database cannot be written.
    case storageError = 2
    /// No GPS module answers (no NMEA on the configured port).
    case gpsAbsent = 3
    /// No radio module answers.
    case radioAbsent = 4
    /// A configured weather sensor is missing or failing.
    case sensorFault = 5
    /// The last selftest failed.
    case selftestFailure = 6

    /// Number of flashes of the status LED's blink code.
    public var blinkCode: Int { rawValue }

    public static func < (lhs: FaultClass, rhs: FaultClass) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .configError: return "config error"
        case .storageError: return "storage error"
        case .gpsAbsent: return "GPS absent"
        case .radioAbsent: return "radio absent"
        case .sensorFault: return "sensor fault"
        case .selftestFailure: return "selftest failure"
        }
    }
}
