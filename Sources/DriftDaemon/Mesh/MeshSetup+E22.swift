import DriftConfig
import DriftMesh
import Hardware

/// The E22 module: registers from the configuration, GPIO lines from the board's chip.
extension MeshSetup {
    /// The air rate `[e22]` names.
    static func e22AirRate(_ config: DriftConfiguration) throws(Problem) -> E22AirRate {
        guard let rate = E22AirRate(kilobitsPerSecond: config.e22.airRateKbps) else {
            throw Problem(description: "e22.air_rate_kbps = \(config.e22.airRateKbps) is not one of the module's air rates")
        }
        return rate
    }

    /// The registers the driver programs: address, net id, UART baud (radio.baud), air rate,
    /// sub-packet size, LBT, channel (radio.frequency_mhz) and the module's TX power nearest
    /// to radio.tx_power_dbm.
    static func e22Registers(_ config: DriftConfiguration) throws(Problem) -> (registers: E22Registers, band: E22Band) {
        let band = E22Band(frequencyMHz: config.radio.frequencyMHz)
        guard let channel = band.channel(frequencyMHz: config.radio.frequencyMHz) else {
            throw Problem(description: "radio.frequency_mhz = \(config.radio.frequencyMHz) is not an E22 channel; nearest: \(band.nearestFrequencyMHz(to: config.radio.frequencyMHz))")
        }
        guard E22Registers.baudRates.contains(config.radio.baud) else {
            throw Problem(description: "radio.baud = \(config.radio.baud): an E22 UART runs at 1200…115200 baud (one of \(E22Registers.baudRates.map(String.init).joined(separator: ", ")))")
        }
        var registers = E22Registers()
        registers.address = UInt16(clamping: config.e22.address)
        registers.netID = UInt8(clamping: config.e22.netID)
        registers.baudRate = config.radio.baud
        registers.airRate = try e22AirRate(config)
        registers.subPacketBytes = config.e22.subPacketBytes
        registers.listenBeforeTalk = config.e22.listenBeforeTalk
        registers.channel = UInt8(channel)
        registers.txPowerDBm = E22Registers.nearestTxPower(to: config.radio.txPowerDBm)
        return (registers, band)
    }

    /// The LoRa modulation the airtime is computed with for an E22: the spreading factor and
    /// bandwidth its air rate is taken as (``E22AirRate``), coding rate 4/5, 8-symbol preamble.
    static func e22Modulation(_ config: DriftConfiguration) throws(Problem) -> LoRaModulation {
        try e22AirRate(config).modulation
    }

    /// The modulation the mesh's airtime uses: `[radio]`'s LoRa settings, or the E22's air rate.
    static func modulation(for config: DriftConfiguration) throws(Problem) -> LoRaModulation {
        try config.radio.kind == .e22 ? e22Modulation(config) : modulation(config.radio)
    }

    /// `[radio]` with the bandwidth the radio really uses (the E22's air rate decides it).
    static func effectiveRadio(_ config: DriftConfiguration) throws(Problem) -> DriftConfiguration.Radio {
        var radio = config.radio
        if radio.kind == .e22 { radio.bandwidthKHz = try e22AirRate(config).bandwidthHz / 1_000 }
        return radio
    }

    /// Whether `[e22]` names no mode lines: M0/M1 strapped to normal mode by jumpers.
    static func e22Strapped(_ config: DriftConfiguration) -> Bool {
        config.e22.m0.isEmpty && config.e22.m1.isEmpty
    }

    /// The E22 driver on the configured UART and the board's GPIO chip (libgpiod only), or
    /// without GPIO when M0/M1 are strapped (``e22Strapped(_:)``).
    /// Nothing is sent to the module until the first receive/transmit (or ``E22Radio/start()``).
    /// `answerTimeout` replaces the driver's 1 s for a register command's and an RSSI read's
    /// answer (`driftd e22 program --answer-timeout`; tests whose software module shares a
    /// loaded CPU).
    static func e22Radio(_ config: DriftConfiguration, answerTimeout: Duration? = nil) throws(Problem) -> E22Radio {
        let (registers, band) = try e22Registers(config)
        guard config.radio.port != "auto" else {
            throw Problem(description: "radio.port = auto: name the E22's UART (e.g. /dev/serial0 for the Waveshare HAT)")
        }
        if e22Strapped(config) {
            do {
                return try E22Radio(configuration: e22Configuration(config, registers: registers, band: band, answerTimeout: answerTimeout), lines: nil,
                                    burstCheck: burstCheck(config))
            } catch {
                throw Problem(description: "\(error)")
            }
        }
        guard config.gpio.backend == .libgpiod else {
            throw Problem(description: "radio.kind = e22 needs gpio.backend = libgpiod (its M0/M1 lines); the simulated GPIO chip has no module behind it")
        }
        let lines: E22Radio.Lines
        do {
            let chip = try GPIOChip.open(config.gpio.chip, driver: LibgpiodDriver())
            defer { chip.close() }
            lines = try E22Radio.Lines.request(on: chip, m0: config.e22.m0, m1: config.e22.m1, aux: config.e22.aux)
        } catch {
            throw Problem(description: "E22 lines on \(config.gpio.chip): \(error)")
        }
        do {
            return try E22Radio(configuration: e22Configuration(config, registers: registers, band: band, answerTimeout: answerTimeout), lines: lines,
                                    burstCheck: burstCheck(config))
        } catch {
            throw Problem(description: "\(error)")
        }
    }
}

extension MeshSetup {
    /// The driver's settings: the port, the registers, and the driver's own timeouts unless
    /// `answerTimeout` replaces those for answers.
    static func e22Configuration(_ config: DriftConfiguration, registers: E22Registers, band: E22Band,
                                 answerTimeout: Duration?) -> E22Radio.Configuration {
        var configuration = E22Radio.Configuration(portPath: config.radio.port, registers: registers, band: band)
        if let answerTimeout {
            configuration.commandTimeout = answerTimeout
            configuration.rssiTimeout = answerTimeout
        }
        return configuration
    }

    /// Reads an E22 burst with the mesh's own check of its frames (``E22Radio/BurstReading``):
    /// one frame and its RSSI byte; several packets run together, each followed by its RSSI
    /// byte, at least one of them a frame of this network (`MeshSealer.packetsRunTogether`: the
    /// others frames too, or one packet that does not open — another network's, another
    /// radio's, cut short — which the node then drops as it drops such a packet alone); or a
    /// whole frame, or several run together, with no RSSI byte after it (the module's packet
    /// RSSI is off). `nil` when the network key does not make a sealer (the node refuses that
    /// key too).
    static func burstCheck(_ config: DriftConfiguration) -> (@Sendable ([UInt8]) -> E22Radio.BurstReading)? {
        guard let sealer = try? MeshSealer(networkKey: config.mesh.networkKey) else { return nil }
        return { burst in
            guard burst.count >= 2, (try? sealer.open(Array(burst.dropLast()))) == nil else { return .packet }
            // One whole frame, or several with nothing between them: no RSSI byte after any. Asked
            // first: the first frame of such a burst would otherwise pass for a frame whose RSSI
            // byte is the next one's first, beside a packet that does not open.
            if (try? sealer.open(burst)) != nil || sealer.framesRunTogether(in: burst, trailerBytes: 0) != nil {
                return .withoutRSSIByte
            }
            if let parts = sealer.packetsRunTogether(in: burst, trailerBytes: 1) { return .packets(parts.map(\.range)) }
            return .packet
        }
    }
}

extension E22AirRate {
    /// The LoRa modulation the mesh takes this air rate for (its airtime, the duty-cycle check,
    /// the relay slot; `driftd sim mesh --air-rate-kbps`): the assumed spreading factor,
    /// bandwidth and coding rate, and the module's 8-symbol preamble (docs/e22.md).
    public var modulation: LoRaModulation {
        LoRaModulation(spreadingFactor: spreadingFactor, bandwidthHz: Double(bandwidthHz),
                       codingRateOffset: codingRate - 4, preambleSymbols: 8)
    }
}
