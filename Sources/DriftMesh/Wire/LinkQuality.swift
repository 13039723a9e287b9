/// How a frame was heard: the radio's signal figures for this reception.
public struct LinkQuality: Hashable, Sendable {
    /// Received signal strength, dBm.
    public var rssi: Double
    /// Signal-to-noise ratio, dB (LoRa decodes down to about −20 dB at SF12).
    public var snr: Double

    public init(rssi: Double, snr: Double) {
        self.rssi = rssi
        self.snr = snr
    }
}
