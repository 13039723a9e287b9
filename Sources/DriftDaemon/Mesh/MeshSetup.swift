import DriftConfig
import DriftMesh
import DriftStore
import Foundation
import Hardware
import Logging

/// Builds the mesh from the configuration: the box's key, the radio, the airtime budget
/// of the region's sub-band, the store and the node.
enum MeshSetup {
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The LoRa modulation the configuration sets (preamble 16 symbols, explicit header, CRC, as Meshtastic).
    static func modulation(_ radio: DriftConfiguration.Radio) -> LoRaModulation {
        LoRaModulation(spreadingFactor: radio.spreadingFactor, bandwidthHz: Double(radio.bandwidthKHz * 1_000),
                       codingRateOffset: radio.codingRate - 4, preambleSymbols: 16)
    }

    /// The duty-cycle policy of the configured channel; a channel outside every allowed
    /// sub-band is refused (the box would break the law on every frame).
    static func policy(_ radio: DriftConfiguration.Radio) throws(Problem) -> DutyCyclePolicy {
        do {
            return try DutyCyclePolicy.forChannel(region: radio.region, frequencyMHz: radio.frequencyMHz, bandwidthHz: Double(radio.bandwidthKHz * 1_000))
        } catch {
            throw Problem(description: "\(error)")
        }
    }

    static func radio(_ config: DriftConfiguration) throws(Problem) -> any MeshRadio {
        switch config.radio.kind {
        case .sim:
            let sim = config.sim
            let transmitter = SimulatedRadioTransmitter(
                latitude: sim.latitude, longitude: sim.longitude, txPowerDBm: config.radio.txPowerDBm,
                channel: .init(frequencyMHz: config.radio.frequencyMHz, spreadingFactor: config.radio.spreadingFactor,
                               bandwidthHz: config.radio.bandwidthKHz * 1_000))
            do {
                return try SimulatedRadio(configuration: .init(
                    port: sim.radioUDPPort, peers: sim.radioPeers.map { ($0.host, $0.port) }, transmitter: transmitter,
                    medium: SimulatedRadioMedium(sim)))
            } catch {
                throw Problem(description: "simulated radio on UDP port \(sim.radioUDPPort): \(error)")
            }
        case .meshtastic:
            return MeshtasticRadio(configuration: meshtasticConfiguration(config), logger: Logger(label: "drift.radio.meshtastic"))
        case .e22:
            return try e22Radio(config)
        case .none:
            throw Problem(description: "radio.kind = none")
        }
    }

    /// The Meshtastic driver's settings from `[radio]` and `[meshtastic]` (always 115200 baud).
    static func meshtasticConfiguration(_ config: DriftConfiguration) -> MeshtasticRadio.Configuration {
        MeshtasticRadio.Configuration(
            path: config.radio.port, baud: 115_200, channel: UInt32(config.meshtastic.channel),
            hopLimit: UInt32(config.meshtastic.hopLimit), textChannel: config.meshtastic.publishedTextChannel.map { UInt32($0) })
    }

    /// The box's key pair from `<data_dir>/mesh.key`, made on the first start.
    static func keyPair(dataDirectory: String, logger: Logger) throws(Problem) -> BoxKeyPair {
        do {
            let (bytes, created) = try MeshKeyFile.loadOrCreate(in: dataDirectory) { BoxKeyPair().rawPrivateKey }
            let pair = try BoxKeyPair(rawPrivateKey: bytes)
            if created { logger.notice("made the box's mesh key", metadata: ["node": "\(pair.nodeID)", "file": "\(dataDirectory)/\(MeshKeyFile.name)"]) }
            return pair
        } catch let problem as MeshKeyFile.Problem {
            throw Problem(description: problem.description)
        } catch {
            throw Problem(description: "\(dataDirectory)/\(MeshKeyFile.name): \(error)")
        }
    }

    /// The duty cycle of the configured channel's sub-band (0…1), `nil` where there is none or
    /// the radio settings name no valid channel (the mesh then refuses to start and says why).
    static func dutyCycle(_ config: DriftConfiguration) -> Double? {
        guard let radio = try? effectiveRadio(config) else { return nil }
        return (try? policy(radio))?.dutyCycle
    }

    /// `mesh.hello_interval_s`, or when it is left out the period for the channel's duty cycle
    /// (900 s in a 1 % sub-band, as an E22 at 868.125 MHz; 300 s at 869.525 MHz).
    static func helloPeriod(_ config: DriftConfiguration, policy: DutyCyclePolicy) -> Duration {
        config.mesh.helloIntervalS.map { .seconds($0) } ?? MeshRouterConfiguration.helloPeriod(dutyCycle: policy.dutyCycle)
    }

    /// The router's settings: hellos every `helloPeriod` (± a tenth; the first within a tenth of
    /// it after the start, so boxes back from a power cut together do not all speak at once),
    /// slots of the modulation, and with `mesh.topology_plan` relays planned on the topology, its adverts paced by the
    /// hello period (``MeshRouterConfiguration/paceTopology(byHelloPeriod:)``).
    static func routing(_ config: DriftConfiguration, helloPeriod period: Duration, modulation: LoRaModulation) -> MeshRouterConfiguration {
        var routing = MeshRouterConfiguration.standard
        routing.helloPeriod = period
        routing.helloJitter = period / 10
        routing.firstHelloSpread = period / 10
        routing.slot = modulation.slot
        routing.topologyPlan = config.mesh.topologyPlan
        routing.paceTopology(byHelloPeriod: period)
        return routing
    }

    /// The node's settings: hop limit (0 behind a Meshtastic radio, which floods itself), message
    /// lifetime, the router of ``routing(_:helloPeriod:modulation:)``, frames no larger than the
    /// radio takes, and paced repair with `mesh.paced_repair`.
    static func nodeSettings(_ config: DriftConfiguration, helloPeriod period: Duration, modulation: LoRaModulation,
                             maximumFrameBytes: Int) -> MeshNode.Settings {
        var settings = MeshNode.Settings(
            hopLimit: config.radio.kind == .meshtastic ? 0 : UInt8(config.mesh.hopLimit), messageLifetime: TimeInterval(config.mesh.messageLifetimeH * 3_600),
            modulation: modulation, router: routing(config, helloPeriod: period, modulation: modulation),
            maximumFrameBytes: min(MeshFrame.maxBytes, maximumFrameBytes))
        if config.mesh.pacedRepair { settings.pacedRepair = MeshNodeMachine<MeshStore>.PacedRepair() }
        return settings
    }

    /// The node and its service, or why the mesh cannot run. The node's timers run on `clock`
    /// and its wall time is `now`.
    static func make(
        config: DriftConfiguration, database: DriftDatabase, dataDirectory: String, health: HealthRegistry, logger: Logger,
        ports: MeshPorts, activity: @escaping @Sendable () -> Void,
        clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() }
    ) throws(Problem) -> MeshService {
        let keyPair = try keyPair(dataDirectory: dataDirectory, logger: logger)
        let policy = try policy(effectiveRadio(config))
        let modulation = try modulation(for: config)
        let radio = try radio(config)
        let period = helloPeriod(config, policy: policy)
        if config.mesh.helloIntervalS == nil {
            logger.info("mesh hello period from the channel's duty cycle", metadata: [
                "seconds": "\(period.components.seconds)", "duty_cycle": "\(policy.dutyCycle.map { "\($0 * 100) %" } ?? "none")"])
        }
        let settings = nodeSettings(config, helloPeriod: period, modulation: modulation, maximumFrameBytes: radio.maximumFrameBytes)
        let store = MeshStore(database: database, limits: MeshStoreLimits(
            maxHeldPackets: config.mesh.holdPackets, maxHeldBytes: config.mesh.holdPackets * 240))
        do {
            let node = try MeshNode(keyPair: keyPair, networkKey: config.mesh.networkKey, store: store,
                                    budget: AirtimeBudget(policy: policy), settings: settings, logger: logger,
                                    onDeliver: { ports.deliver($0) }, onConfirmed: { ports.confirm($0) }, clock: clock, now: now)
            return MeshService(node: node, radio: radio, health: health, logger: logger, activity: activity)
        } catch {
            radio.close()
            throw Problem(description: "mesh node: \(error)")
        }
    }

    /// `mesh.send`, `mesh.inbox` and `mesh.status` on the control socket.
    static func registerControlCommands(_ commands: inout ControlCommands, service: MeshService) {
        let node = service.node
        commands.register("mesh.status") { _ in await service.status() }
        commands.register("mesh.inbox") { _ in MeshInboxAnswer(node: "\(node.me)", messages: node.inbox.all) }
        commands.register("mesh.send") { arguments in
            guard let text = arguments["text"], !text.isEmpty else {
                throw ControlError(code: "bad_arguments", message: "text is required")
            }
            var destination: NodeID?
            if let to = arguments["to"], !to.isEmpty {
                guard let parsed = NodeID(parsing: to) else {
                    throw ControlError(code: "bad_arguments", message: "to must be a node id like !1a2b3c4d, found \(to)")
                }
                destination = parsed
            }
            let receipt: MeshNode.Receipt
            do {
                receipt = try await node.send(.text(text), to: destination)
            } catch {
                throw ControlError(code: "not_sent", message: "\(error)")
            }
            service.wake()
            return receipt
        }
    }
}

/// What `mesh.status` answers on a box whose mesh is configured but could not start.
struct MeshDownStatus: Codable, Sendable {
    var running = false
    var problem: String
}

extension MeshSetup {
    /// `mesh.status` on a box whose mesh is configured but did not start: it says why, so
    /// `driftd mesh status` never answers "unknown command" there.
    static func registerDownCommands(_ commands: inout ControlCommands, problem: String) {
        commands.register("mesh.status") { _ in MeshDownStatus(problem: problem) }
    }
}

/// The answer of `mesh.inbox`.
struct MeshInboxAnswer: Codable, Sendable {
    var node: String
    var messages: [MeshInbox.Entry]
}

extension SimulatedRadioMedium {
    /// The simulated medium as `[sim]` sets it (the sim board's radio, and `driftd sim e22`'s).
    public init(_ sim: DriftConfiguration.Sim) {
        self.init(pathLossExponent: sim.radioPathLossExponent, rangeMeters: sim.radioRangeM, lossProbability: sim.radioLoss,
                  latency: .milliseconds(sim.radioLatencyMs),
                  captureThresholdDb: sim.radioCollisions ? Self.defaultCaptureThresholdDb : nil)
    }
}
