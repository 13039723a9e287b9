import DriftCore
import Foundation

/// One new input from the box's world, fed to the lifecycle processor as it arrives
/// (GPS service, sensor service, time source, buttons).
public enum AmbientInput: Sendable, Equatable {
    /// The GPS service's current state: receiver present, listening since, latest fix.
    case gps(GPSState)
    /// One sensor reading, appended to that quantity's history.
    case reading(SensorQuantity, SensorReading)
    /// The rain gauge started listening at this instant (clears its tip history), with its
    /// bucket size.
    case rainGaugeStarted(at: Date, millimetresPerTip: Double = RainGaugeHistory.standardMillimetresPerTip)
    /// One tip of the rain gauge bucket.
    case rainTip(at: Date)
    /// Replaces all weather histories at once (simulated weather, or a sensor service snapshot).
    case weather(WeatherSnapshot)
    /// Whether the system clock is trustworthy (NTP or GPS time).
    case clockSynchronized(Bool)
    /// The presence button on the box was pressed.
    case buttonPressed(at: Date)
    /// The keep-alive button on the box was pressed: the box claims Keep Alive for every
    /// dying chat here.
    case keepAliveButtonPressed(at: Date)
}

/// A sensor quantity with a reading history.
public enum SensorQuantity: String, Sendable, Equatable, CaseIterable {
    /// Air temperature, °C.
    case temperature
    /// Relative humidity, %.
    case humidity
    /// Station pressure, hPa.
    case pressure
}
