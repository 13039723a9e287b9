extension LoRaModulation {
    /// One contention slot, as Meshtastic's firmware computes it (`computeSlotTimeMsec`):
    /// channel activity detection (8.5 symbols) + propagation, turnaround and MAC
    /// processing (0.2 + 0.4 + 7 ms). LongFast: 77.2 ms. Relay delays count in slots, so
    /// faster presets relay sooner.
    public var slot: Duration {
        .microseconds(Int64(((8.5 * symbolSeconds * 1000 + 0.2 + 0.4 + 7) * 1000).rounded()))
    }
}
