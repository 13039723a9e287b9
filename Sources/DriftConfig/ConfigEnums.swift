/// Minimum severity written to the log (`daemon.log_level`); names match swift-log's levels.
public enum LogLevel: String, Sendable, Equatable, Hashable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
}

/// Which radio driver runs (`radio.kind`).
public enum RadioKind: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Simulated radio: UDP on loopback (see `[sim]`).
    case sim
    /// An E22/SX126x UART module (e.g. the Waveshare SX1262 HAT), with M0/M1 mode lines.
    case e22
    /// A Meshtastic node on USB serial.
    case meshtastic
    /// No radio: no mesh traffic.
    case none
}

/// Where position fixes come from (`gps.kind`).
public enum GPSKind: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Simulated fixes at `sim.latitude`/`sim.longitude` (or replayed from `sim.nmea_replay`).
    case sim
    /// An NMEA 0183 receiver on a serial port.
    case nmea
    /// A running gpsd at `gps.gpsd_address`.
    case gpsd
    /// No GPS: the box uses `box.latitude`/`box.longitude` if set.
    case none
}

/// Which GPIO implementation drives buttons, LEDs and mode lines (`gpio.backend`).
public enum GPIOBackend: String, Sendable, Equatable, Hashable, CaseIterable {
    /// The kernel GPIO character device through libgpiod.
    case libgpiod
    /// An in-process simulated chip.
    case sim
}
