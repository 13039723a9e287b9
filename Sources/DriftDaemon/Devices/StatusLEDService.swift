import Hardware
import Logging
import ServiceLifecycle

/// Drives the status LED with a heartbeat (a short flash every second) while
/// the box is healthy, and a fast blink while any main loop is stalled or a
/// fault is reported. Each cycle beats into the health registry.
///
/// (The full pattern engine — blink codes per fault class, the bottle, radio
/// and GPS LEDs — is built on this later.)
public struct StatusLEDService: Service {
    public static let componentName = "leds"

    let led: GPIOOutputRequest?
    let health: HealthRegistry
    let logger: Logger

    public init(led: GPIOOutputRequest?, health: HealthRegistry, logger: Logger) {
        self.led = led
        self.health = health
        self.logger = logger
        health.register(Self.componentName, maximumSilence: .seconds(5))
    }

    public func run() async throws {
        defer {
            try? led?.set(false)
            health.unregister(Self.componentName)
        }
        do {
            try await cancelWhenGracefulShutdown {
                while true {
                    health.beat(Self.componentName)
                    let report = health.evaluate()
                    let healthy = report.isAlive && report.faults.isEmpty
                    // Healthy: 80 ms on, 920 ms off. Trouble: 250 ms on/off twice a second.
                    let phases: [(Bool, Duration)] = healthy
                        ? [(true, .milliseconds(80)), (false, .milliseconds(920))]
                        : [(true, .milliseconds(250)), (false, .milliseconds(250)), (true, .milliseconds(250)), (false, .milliseconds(250))]
                    for (on, duration) in phases {
                        setLED(on)
                        try await Task.sleep(for: duration)
                    }
                }
            }
        } catch is CancellationError {}
    }

    private func setLED(_ on: Bool) {
        guard let led else { return }
        do {
            try led.set(on)
        } catch {
            health.setFault(Self.componentName, "status LED: \(error)")
        }
    }
}
