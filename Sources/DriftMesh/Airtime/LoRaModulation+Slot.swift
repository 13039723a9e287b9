extension LoRaModulation {
    /// One contention slot, as older Meshtastic firmware computes it (`computeSlotTimeMsec`):
    /// channel activity detection (8.5 symbols) + propagation, turnaround and MAC
    /// processing (0.2 + 0.4 + 7 ms). LongFast: 77.2 ms. Relay delays and the
    /// listen-before-talk back-off count in slots, so faster presets relay sooner. (Current
    /// firmware's 2.5 symbols, 28 ms at LongFast, cost reach at 30–50 boxes in the simulator:
    /// docs/mesh-simulation.md, "Relay order and latency".)
    public var slot: Duration {
        .microseconds(Int64(((8.5 * symbolSeconds * 1000 + 0.2 + 0.4 + 7) * 1000).rounded()))
    }
}
