/// One frame as a radio received it, with the signal figures of that reception.
public struct RadioReception: Sendable, Equatable {
    /// The frame's bytes (the LoRa payload).
    public var bytes: [UInt8]
    /// Received signal strength, dBm.
    public var rssi: Double
    /// Signal-to-noise ratio, dB.
    public var snr: Double

    public init(bytes: [UInt8], rssi: Double, snr: Double) {
        self.bytes = bytes
        self.rssi = rssi
        self.snr = snr
    }
}
