import Hardware

/// What went wrong with a BME280, naming the bus and address where it matters.
public enum BME280Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing answers at the address (absent, unplugged, wrong address).
    case noDevice(bus: String, address: UInt8)
    /// Something answers but its chip id (register 0xD0) is not 0x60 — e.g. 0x58, a BMP280.
    case wrongChip(id: UInt8)
    /// Any other bus failure.
    case bus(I2CError)
    /// The chip was still copying its NVM after reset, or still measuring, when asked.
    case busy(String)
    /// The calibration registers cannot be right.
    case invalidCalibration(String)
    /// The data registers cannot be right (a skipped measurement, a short read).
    case invalidData(String)
    /// The compensated reading lies outside the part's operating range.
    case implausible(BME280Reading, reason: String)
    /// ``BME280/measure()`` before a successful ``BME280/start(clock:)`` or ``BME280/readCalibration()``.
    case notStarted

    /// Maps a bus error, turning "no device" into ``noDevice(bus:address:)``.
    public init(_ error: I2CError) {
        if case .noDevice(let bus, let address) = error {
            self = .noDevice(bus: bus, address: address)
        } else {
            self = .bus(error)
        }
    }

    public var description: String {
        switch self {
        case .noDevice(let bus, let address):
            let hex = String(address, radix: 16)
            return "BME280 absent: no device on \(bus) at 0x\(hex.count < 2 ? "0" + hex : hex)"
        case .wrongChip(let id):
            let hex = String(id, radix: 16)
            return "not a BME280: chip id 0x\(hex.count < 2 ? "0" + hex : hex), expected 0x60\(id == 0x58 ? " (a BMP280 has no humidity)" : "")"
        case .bus(let error): return "BME280: \(error)"
        case .busy(let what): return "BME280 busy: \(what)"
        case .invalidCalibration(let why): return "BME280 calibration invalid: \(why)"
        case .invalidData(let why): return "BME280 data invalid: \(why)"
        case .implausible(_, let reason): return "BME280 reading implausible: \(reason)"
        case .notStarted: return "BME280 not started (calibration not read)"
        }
    }
}
