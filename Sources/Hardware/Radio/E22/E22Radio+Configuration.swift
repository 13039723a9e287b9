extension E22Radio {
    /// What the driver needs: the UART, the registers to program, the timing.
    public struct Configuration: Sendable, Equatable {
        /// UART device, e.g. `/dev/ttyS0` (Waveshare HAT on the Pi header) or `/dev/ttyUSB0`.
        public var portPath: String
        /// The registers to write at start. The driver forces transparent transmission
        /// (fixed-point off), relay off, the packet RSSI byte on, and ambient-noise RSSI on.
        /// ``E22Registers/baudRate`` is the UART rate of normal mode.
        public var registers: E22Registers
        /// The module's band (channel → frequency), for logs and the selftest line.
        public var band: E22Band
        /// How long to wait for the answer to a register command.
        public var commandTimeout: Duration
        /// How long to wait for the answer to an RSSI read in normal mode.
        public var rssiTimeout: Duration
        /// How long AUX may stay low (busy) before the module counts as stuck.
        public var auxTimeout: Duration
        /// Without AUX: how long to wait after changing M0/M1 (the module needs a few ms; Ebyte
        /// recommends waiting for AUX, so this is generous).
        public var modeSwitchDelay: Duration
        /// The silence, in byte-times at the UART baud, that ends one received packet.
        public var idleGapBytes: Int
        /// The shortest idle gap whatever the baud (Linux read timeouts are not byte-exact).
        public var minimumIdleGap: Duration
        /// How often, with no traffic, normal mode checks that the module still answers
        /// (an ambient-noise read); `nil` = never.
        public var probeInterval: Duration?

        public init(
            portPath: String, registers: E22Registers, band: E22Band = .mhz900,
            commandTimeout: Duration = .seconds(1), rssiTimeout: Duration = .seconds(1), auxTimeout: Duration = .seconds(3),
            modeSwitchDelay: Duration = .milliseconds(60), idleGapBytes: Int = 4,
            minimumIdleGap: Duration = .milliseconds(15), probeInterval: Duration? = .seconds(60)
        ) {
            self.portPath = portPath
            self.registers = registers
            self.band = band
            self.commandTimeout = commandTimeout
        self.rssiTimeout = rssiTimeout
            self.auxTimeout = auxTimeout
            self.modeSwitchDelay = modeSwitchDelay
            self.idleGapBytes = idleGapBytes
            self.minimumIdleGap = minimumIdleGap
            self.probeInterval = probeInterval
        }

        /// The registers actually written: ``registers`` with the driver's fixed choices.
        public var effectiveRegisters: E22Registers {
            var registers = registers
            registers.fixedPoint = false
            registers.relay = false
            registers.packetRSSIEnabled = true
            registers.ambientNoiseEnabled = true
            registers.parity = .none8N1
            registers.worTransmitter = false
            return registers
        }

        /// The idle gap that ends a received packet at `baud`.
        public func idleGap(baud: Int) -> Duration {
            let byteTime = Duration.nanoseconds(Int64(10 * 1_000_000_000 / max(baud, 1)))
            return max(byteTime * idleGapBytes, minimumIdleGap)
        }
    }

    /// The GPIO lines of the module: M0 and M1 outputs, AUX input (high = idle) when wired.
    public struct Lines: Sendable {
        public var m0: GPIOOutputRequest
        public var m1: GPIOOutputRequest
        public var aux: GPIOInputRequest?

        public init(m0: GPIOOutputRequest, m1: GPIOOutputRequest, aux: GPIOInputRequest?) {
            self.m0 = m0
            self.m1 = m1
            self.aux = aux
        }

        /// Requests the named lines on `chip` (M0/M1 start low: normal mode; AUX pulled up).
        public static func request(on chip: GPIOChip, m0: String, m1: String, aux: String?, consumer: String = "driftd-e22") throws(E22Error) -> Lines {
            var requested: [GPIOOutputRequest] = []
            do {
                let m0Request = try chip.requestOutput(named: [m0], initial: [false], consumer: consumer)
                requested.append(m0Request)
                let m1Request = try chip.requestOutput(named: [m1], initial: [false], consumer: consumer)
                requested.append(m1Request)
                var auxRequest: GPIOInputRequest?
                if let aux, !aux.isEmpty {
                    auxRequest = try chip.requestInput(named: [aux], consumer: consumer, bias: .pullUp)
                }
                return Lines(m0: m0Request, m1: m1Request, aux: auxRequest)
            } catch {
                requested.forEach { $0.release() }
                throw .io("GPIO lines M0 \(m0), M1 \(m1), AUX \(aux ?? "-"): \(error)")
            }
        }

        func release() {
            m0.release()
            m1.release()
            aux?.release()
        }
    }
}
