import DriftConfig
import Foundation
import Hardware

/// `driftd e22 program`: the registers the configuration names, written to the box's E22 and
/// read back (``E22Radio/program(write:)``) — the way to set up a module whose M0/M1 are
/// strapped to normal mode, whose registers the daemon cannot reach (docs/e22.md). With the
/// mode lines wired the daemon programs the module at every start; the command works there
/// too and switches the mode itself.
public struct E22Programming: Sendable {
    /// The module's UART.
    public var port: String
    /// Whether M0/M1 are strapped (`e22.m0 = e22.m1 = ""`): the jumpers chose the mode.
    public var strapped: Bool
    /// What the module held, what it holds now, what the configuration asks for.
    public var result: E22Radio.Programming

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads the module's registers and, with `write`, programs the configured ones;
    /// `answerTimeout` is how long the module may take to answer each command (`nil`: the
    /// driver's 1 s).
    /// - Throws: ``Failure`` naming what stopped it (the configuration, the port, the module).
    public static func run(config: DriftConfiguration, write: Bool, answerTimeout: Duration? = nil) async throws(Failure) -> E22Programming {
        guard config.radio.kind == .e22 else {
            throw Failure(description: "radio.kind = \(config.radio.kind.rawValue): there is no E22 to program (radio.kind = e22)")
        }
        let radio: E22Radio
        do {
            radio = try MeshSetup.e22Radio(config, answerTimeout: answerTimeout)
        } catch {
            throw Failure(description: error.description)
        }
        defer { radio.close() }
        do {
            let result = try await radio.program(write: write)
            return E22Programming(port: config.radio.port, strapped: radio.isStrapped, result: result)
        } catch let error as E22Error {
            if case .portBusy = error {
                throw Failure(description: "\(error) — stop it first (systemctl stop driftd)")
            }
            throw Failure(description: "\(error)")
        } catch {
            throw Failure(description: "E22: \(error)")
        }
    }

    /// Whether the module held what the configuration asks for before (registers 00H–06H;
    /// the key cannot be read).
    public var heldAlready: Bool {
        Array(result.before.bytes.prefix(E22Registers.readableCount)) == Array(result.wanted.bytes.prefix(E22Registers.readableCount))
    }

    /// One line per register, the module's byte and the configuration's, then the settings
    /// that differ in words, then what to do next.
    public func renderText() -> String {
        var lines = ["E22 on \(port)" + (strapped ? " (M0/M1 strapped: the jumpers hold configuration mode)" : " (mode lines wired)")]
        let before = result.before.bytes, wanted = result.wanted.bytes
        lines.append("register      module  wanted")
        for address in 0..<E22Registers.readableCount {
            let name = E22Registers.names[address].padding(toLength: 12, withPad: " ", startingAt: 0)
            lines.append("\(name)  \(E22Error.hex([before[address]]))      \(E22Error.hex([wanted[address]]))"
                         + (before[address] == wanted[address] ? "" : "  differs"))
        }
        let changes = Self.differences(from: result.before, to: result.wanted)
        if !changes.isEmpty {
            lines.append("differs: " + changes.joined(separator: "; "))
        }
        if result.after != nil {
            lines.append("wrote \(E22Registers.count) registers (kept over power cycles); they read back as the configuration asks.")
        } else {
            lines.append(heldAlready
                ? "the module holds what the configuration asks for (the key, 07H–08H, cannot be read)."
                : "nothing written (--check): run without --check to program the module.")
        }
        if strapped {
            lines.append("Now set the jumpers back to normal mode (M0 and M1 low) and start driftd.")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The settings that differ between two register sets, in words ("packet RSSI byte off → on").
    public static func differences(from old: E22Registers, to new: E22Registers) -> [String] {
        var out: [String] = []
        func note<T: Equatable>(_ name: String, _ a: T, _ b: T, _ show: (T) -> String = { "\($0)" }) {
            if a != b { out.append("\(name) \(show(a)) → \(show(b))") }
        }
        let onOff: (Bool) -> String = { $0 ? "on" : "off" }
        note("address", old.address, new.address)
        note("net id", old.netID, new.netID)
        note("UART baud", old.baudRate, new.baudRate)
        note("parity", old.parity, new.parity) { ["8N1", "8O1", "8E1", "8N1"][Int($0.rawValue & 3)] }
        note("air rate", old.airRate, new.airRate) { $0.description }
        note("sub-packet", old.subPacketBytes, new.subPacketBytes) { "\($0) bytes" }
        note("ambient-noise RSSI", old.ambientNoiseEnabled, new.ambientNoiseEnabled, onOff)
        note("TX power", old.txPowerDBm, new.txPowerDBm) { "\($0) dBm" }
        note("channel", old.channel, new.channel)
        note("packet RSSI byte", old.packetRSSIEnabled, new.packetRSSIEnabled, onOff)
        note("fixed-point transmission", old.fixedPoint, new.fixedPoint, onOff)
        note("relay", old.relay, new.relay, onOff)
        note("listen before talk", old.listenBeforeTalk, new.listenBeforeTalk, onOff)
        note("WOR transmitter", old.worTransmitter, new.worTransmitter, onOff)
        note("WOR cycle", old.worCycle, new.worCycle) { "\((Int($0) + 1) * 500) ms" }
        if old.reserved1 != new.reserved1 { out.append("REG1 reserved bits \(old.reserved1) → \(new.reserved1)") }
        return out
    }
}
