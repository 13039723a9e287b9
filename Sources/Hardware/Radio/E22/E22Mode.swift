/// The E22's working modes, chosen by the M0/M1 pins.
public enum E22Mode: String, Sendable, Equatable, CaseIterable {
    /// M0 = 0, M1 = 0: transmit and receive.
    case normal
    /// M0 = 1, M1 = 0: wake-on-radio.
    case wakeOnRadio = "wor"
    /// M0 = 0, M1 = 1: registers; the UART runs at 9600 8N1 whatever REG0 says.
    case configuration
    /// M0 = 1, M1 = 1: deep sleep.
    case sleep

    /// The pin levels (M0, M1).
    public var levels: (m0: Bool, m1: Bool) {
        switch self {
        case .normal: (false, false)
        case .wakeOnRadio: (true, false)
        case .configuration: (false, true)
        case .sleep: (true, true)
        }
    }

    /// The mode pins select.
    public init(m0: Bool, m1: Bool) {
        switch (m0, m1) {
        case (false, false): self = .normal
        case (true, false): self = .wakeOnRadio
        case (false, true): self = .configuration
        case (true, true): self = .sleep
        }
    }

    /// The UART baud of configuration mode.
    public static let configurationBaud = 9600
}
