import DriftSystem

/// An ``E22Emulator`` with M0/M1 strapped to normal mode, behind a new pseudo-terminal: a
/// software module for a consumer that opens a tty path (a VM's emulated UART, `driftd` on a
/// board whose `e22.m0`/`e22.m1` are `""`).
///
/// The emulator's mode lines are on a private simulated GPIO chip that only ``setJumpers(_:)``
/// drives, so they stay low (normal mode) until moved: frames written to ``slavePath`` go out
/// on the air side, packets heard there come back with the RSSI byte (when the registers say
/// so). ``stop()`` ends the emulator and closes the master.
public final class E22StrappedModule: Sendable {
    /// The pty's slave, e.g. `/dev/pts/7`: the module's UART as the consumer sees it.
    public let slavePath: String
    public let emulator: E22Emulator
    private let master: FileDescriptor
    private let gpio: SimulatedGPIODriver

    /// Opens a pty and starts an emulator holding `registers` (as if configured before being
    /// strapped) with `air` as its radio (owned: ``stop()`` closes it).
    public init(registers: E22Registers, air: SimulatedRadio) throws(SystemError) {
        let (descriptor, slave) = try PseudoTerminalMaster.open()
        slavePath = slave
        master = descriptor
        let gpio = SimulatedGPIODriver()
        _ = gpio.addChip(name: "gpiochip0", label: "e22-straps", lineNames: ["m0", "m1"])
        self.gpio = gpio
        emulator = E22Emulator(master: descriptor, gpio: gpio, wiring: .init(m0: "m0", m1: "m1", aux: nil), air: air, registers: registers)
        emulator.start()
    }

    /// Moves the module's jumpers: M0/M1 as `mode` selects (``E22Mode/levels``), as an installer
    /// does to program a strapped module's registers (`driftd e22 program`).
    public func setJumpers(_ mode: E22Mode) {
        try? gpio.drive(line: "m0", to: mode.levels.m0)
        try? gpio.drive(line: "m1", to: mode.levels.m1)
    }

    /// Stops the emulator and closes the pty master (the slave side then reads EIO).
    public func stop() {
        emulator.stop()
        try? master.close()
    }
}
