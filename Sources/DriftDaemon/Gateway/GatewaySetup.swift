import DriftConfig
import DriftStore
import Logging

/// Builds the gateway from `[mqtt]` when it is enabled and the mesh runs.
enum GatewaySetup {
    static func make(config: DriftConfiguration, boxID: String, mesh: MeshService, database: DriftDatabase, ports: MeshPorts,
                     health: HealthRegistry, telemetry: GatewayTelemetry.Sources, logger: Logger) -> GatewayService? {
        guard config.mqtt.enabled else { return nil }
        do {
            let password = try GatewayService.password(config.mqtt)
            // A fault while the broker refuses the box or TLS fails; no heartbeat (it waits on the network).
            health.register(GatewayService.component, maximumSilence: nil)
            return try GatewayService(
                config: config.mqtt, networkKey: config.mesh.networkKey, boxID: boxID, mesh: mesh,
                outbox: MQTTOutbox(database: database, limit: config.mqtt.queueLimit), telemetry: telemetry,
                camps: ports.tap(on: .camp), password: password, health: health, logger: logger)
        } catch {
            logger.error("the mqtt gateway cannot start", metadata: ["problem": "\(error)"])
            health.register(GatewayService.component, maximumSilence: nil)
            health.setFault(GatewayService.component, "\(error)")
            return nil
        }
    }
}
