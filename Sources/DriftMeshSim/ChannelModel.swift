import DriftMesh
import Foundation

/// The LoRa channel as Meshtasticator models it (lib/config.py, lib/phy.py): 3GPP
/// suburban-macro path loss, a per-direction random link offset, sensitivity and CAD
/// thresholds of the preset, a capture threshold for collisions.
public struct ChannelModel: Sendable, Hashable {
    /// Transmit power, dBm (Meshtasticator: the US region's limit, 30 dBm).
    public var txPowerDbm = 30.0
    /// Antenna gain, dBi, at each end.
    public var antennaGainDbi = 0.0
    /// Antenna height, m.
    public var heightM = 1.0
    /// Carrier, Hz (US 902 MHz + 27 × 250 kHz, Meshtasticator's default channel).
    public var frequencyHz = 902e6 + 27 * 250e3
    /// LongFast decodes down to −131.5 dBm (Semtech calculator, NF 6 dB).
    public var sensitivityDbm = -131.5
    /// Channel-activity detection threshold: 3 dB under the sensitivity.
    public var cadThresholdDbm = -134.5
    /// Noise floor used to turn RSSI into SNR.
    public var noiseLevelDbm = ChannelModel.longFastNoiseLevelDbm
    /// Standard deviation of the per-direction link offset (asymmetric links), dB
    /// (Meshtasticator `MODEL_ASYMMETRIC_LINKS_STDDEV`).
    public var linkOffsetSigmaDb = 3.0
    /// A packet survives an overlap when it is this much stronger than the other.
    public var captureThresholdDb = 6.0
    public var modulation = LoRaModulation.longFast

    public init() {}

    /// 3GPP suburban macro-cell path loss (Meshtasticator model 5), dB, at `distance` m.
    public func pathLoss(distance: Double) -> Double {
        let d = max(distance, 0.001)
        let f = log10(frequencyHz) - 6
        return (44.9 - 6.55 * log10(heightM)) * (log10(d) - 3) + 45.5 + (35.46 - 1.1 * heightM) * f
            - 13.82 * log10(heightM) + 0.7 * heightM
    }

    /// Received power without the random offset.
    public func meanRssi(distance: Double) -> Double {
        txPowerDbm + 2 * antennaGainDbi - pathLoss(distance: distance)
    }

    /// Our router's relay slot in milliseconds (`LoRaModulation.slot`: 8.5 symbols + 7.6 ms,
    /// the slot of older Meshtastic firmware, kept as the daemon's relay-delay unit).
    public var slotMs: Double {
        Double(modulation.slot / .nanoseconds(1)) / 1_000_000
    }

    /// The current firmware's slot (`RadioInterface::computeSlotTimeMsec`, SX126x):
    /// `max(2.25, NUM_SYM_CAD 2 + 0.5)` symbols + 0.2 + 0.4 + 7 ms, truncated to whole
    /// milliseconds (`uint32_t`). LongFast: 28 ms. Also how long a transmission must have
    /// been on air before channel-activity detection sees it.
    public var meshtasticSlotMs: Double {
        (2.5 * modulation.symbolSeconds * 1000 + 0.2 + 0.4 + 7).rounded(.down)
    }

    /// Meshtasticator's noise level at LongFast's 250 kHz; ``use(_:demodulationLimitDb:)``
    /// moves it with the bandwidth.
    static let longFastNoiseLevelDbm = -119.25

    /// Tunes the channel to `modulation`: the sensitivity from Semtech's formula (thermal noise
    /// −174 dBm/Hz over the bandwidth, a 6 dB noise figure, plus `demodulationLimitDb`, the
    /// lowest SNR the spreading factor decodes at), the CAD threshold 3 dB under it, the noise
    /// level moved from LongFast's by the bandwidth. LongFast (SF11 at 250 kHz, −17.5 dB) gives
    /// the defaults back (−131.52 dBm against the rounded −131.5; −134.5; −119.25). The link
    /// budget (power, gains, frequency) stays as set.
    public mutating func use(_ modulation: LoRaModulation, demodulationLimitDb: Double) {
        self.modulation = modulation
        let bandwidthDb = 10 * log10(modulation.bandwidthHz)
        sensitivityDbm = -174 + bandwidthDb + 6 + demodulationLimitDb
        cadThresholdDbm = sensitivityDbm - 3
        noiseLevelDbm = Self.longFastNoiseLevelDbm + bandwidthDb - 10 * log10(250_000)
    }

    /// Preamble symbols a receiver needs clear to lock onto a packet (Meshtasticator: all but the last 5).
    public var lockSeconds: Double {
        Double(modulation.preambleSymbols - 5) * modulation.symbolSeconds
    }
}
