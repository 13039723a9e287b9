import DriftConfig

/// What the system around `driftd` switches off for a power profile: read at boot by the
/// image's `driftbox-power.service` (`driftd power plan`), which does it (docs/power.md).
public struct PowerPlan: Sendable, Equatable {
    public var profile: PowerProfile
    /// HDMI output on (`false`: the HDMI connectors are forced off).
    public var hdmi: Bool
    /// The board's own activity LED (the Pi's green ACT LED) on.
    public var activityLED: Bool
    /// The Wi-Fi radio on (`false`: soft-blocked with rfkill). Kept on for a gateway
    /// (`[mqtt] enabled`), whose uplink may be Wi-Fi.
    public var wifi: Bool
    /// The visitor access point runs (`driftd ap render` renders it).
    public var accessPoint: Bool

    public init(config: DriftConfiguration) {
        profile = config.powerProfile
        let beacon = profile == .beacon
        hdmi = !beacon
        activityLED = !beacon
        wifi = !beacon || config.mqtt.enabled
        accessPoint = !beacon && config.accessPoint.enabled
    }

    /// `key=value` lines a shell script reads: `profile`, `hdmi`, `activity_led`, `wifi`,
    /// `access_point`, each `on` or `off` (the profile by name).
    public func renderShell() -> String {
        func word(_ on: Bool) -> String { on ? "on" : "off" }
        return """
        profile=\(profile.rawValue)
        hdmi=\(word(hdmi))
        activity_led=\(word(activityLED))
        wifi=\(word(wifi))
        access_point=\(word(accessPoint))

        """
    }
}
