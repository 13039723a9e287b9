import DriftSystem
import Hardware

/// Where one LED's light goes: a GPIO line that ``LEDService`` switches at every edge, or a
/// kernel LED (`/sys/class/leds/drift-<role>`) that repeats a pattern on the kernel's timer, so
/// that a blinking box does not wake the daemon (docs/leds-and-buttons.md, "Kernel LEDs").
public enum LEDOutput: Sendable {
    case line(GPIOOutputRequest)
    case kernel(KernelLED)

    /// The kernel LED's name for a role when it is declared by the board's overlay.
    public static func kernelName(_ role: LEDRole) -> String { "drift-\(role.rawValue)" }

    /// Holds one level.
    public func set(_ on: Bool) throws {
        switch self {
        case .line(let request): try request.set(on)
        case .kernel(let led): try led.set(on)
        }
    }

    /// The cycle this output repeats by itself for `pattern`, `t` into it; `nil` when the
    /// daemon must blink it (a GPIO line, a kernel without the `pattern` trigger, a pattern
    /// that does not repeat or steps faster than the kernel's timer).
    public func cycle(for pattern: LEDPattern, at t: Duration) -> [(level: Bool, duration: Duration)]? {
        guard case .kernel(let led) = self, led.canPlay else { return nil }
        return pattern.kernelCycle(at: t)
    }

    /// Hands `cycle` to the kernel (only for a ``cycle(for:at:)`` answer).
    public func play(_ cycle: [(level: Bool, duration: Duration)]) throws {
        guard case .kernel(let led) = self else { return }
        try led.play(cycle)
    }

    /// Dark: on stop, so that an ended daemon shows no heartbeat.
    public func turnOff() {
        switch self {
        case .line(let request): try? request.set(false)
        case .kernel(let led): led.turnOff()
        }
    }

    /// How the control socket and logs name it.
    public var description: String {
        switch self {
        case .line(let request): "GPIO line \(request.offsets.first.map(String.init) ?? "?") on \(request.chip)"
        case .kernel(let led): "kernel LED \(led.name)\(led.canPlay ? "" : " (no pattern trigger: blinked by driftd)")"
        }
    }
}
