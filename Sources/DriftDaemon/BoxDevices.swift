import DriftConfig
import Hardware
import Logging
import ServiceLifecycle

/// The box's devices as the board profile describes them: opened at start-up
/// (a device that fails is reported as a fault, never fatal) and run by their
/// services.
public struct BoxDevices: Sendable {
    /// The services that run the devices.
    public var services: [any Service]
    /// Adds device commands (simulated-world control on the sim board) to the control socket.
    public var registerControlCommands: @Sendable (inout ControlCommands) -> Void

    /// Opens what `config` describes.
    public static func open(config: DriftConfiguration, health: HealthRegistry, logger: Logger) -> BoxDevices {
        BoxDevices(services: [], registerControlCommands: { _ in })
    }
}
