import Foundation

/// The simulated radio's physics: who hears whom, how loud, and what gets lost.
///
/// Log-distance path loss from free space at 1 m: `PL(d) = 20·log10(f MHz) − 27.55 +
/// 10·n·log10(d / 1 m)`, RSSI = TX power − PL, noise floor `−174 + 10·log10(BW) + 6` dBm,
/// and a frame is heard when its SNR reaches the spreading factor's demodulation limit
/// (SF7 −7.5 dB … SF12 −20 dB; SF11 at 250 kHz gives the −131.5 dBm sensitivity of
/// Meshtastic's LongFast). `rangeMeters > 0` replaces the sensitivity test by a hard
/// range, which makes line-shaped test meshes exact. Radios on another frequency,
/// spreading factor or bandwidth never hear each other.
///
/// Two frames a receiver hears that overlap on the air collide there, as in the mesh
/// simulator's channel (`ChannelModel.captureThresholdDb`, `MeshSimulation`): each is lost
/// unless it is ``captureThresholdDb`` stronger than the other, and they interact only when the
/// later one starts before the earlier one's last ``lockSymbols`` symbols of preamble time
/// have passed its end — that is, the earlier one still on the air when the later one's
/// receiver would lock onto its preamble. Hidden terminals (two boxes that do not hear each
/// other, both heard by a third) lose their frames there, as on real radios.
public struct SimulatedRadioMedium: Sendable, Equatable {
    /// Path-loss exponent n (2 = free space, 2.7–3.5 suburban, 4 obstructed).
    public var pathLossExponent: Double
    /// Hard range in metres; 0 = decide by the path-loss model and sensitivity.
    public var rangeMeters: Double
    /// Probability (0–1) that a frame in range is lost anyway.
    public var lossProbability: Double
    /// Extra delivery delay on top of the time on air.
    public var latency: Duration
    /// A frame survives an overlap at the receiver when it is this much stronger than the other
    /// (dB); `nil`: frames never collide (the loopback radio before collisions were modelled).
    public var captureThresholdDb: Double?

    /// The mesh simulator's capture threshold (`ChannelModel.captureThresholdDb`).
    public static let defaultCaptureThresholdDb = 6.0
    /// Preamble symbols a receiver needs before it locks: the daemon's 16-symbol preamble less
    /// the last 5, as the mesh simulator's `ChannelModel.lockSeconds`.
    public static let lockSymbols = 11

    public init(
        pathLossExponent: Double = 3.0, rangeMeters: Double = 0, lossProbability: Double = 0, latency: Duration = .zero,
        captureThresholdDb: Double? = Self.defaultCaptureThresholdDb
    ) {
        self.pathLossExponent = pathLossExponent
        self.rangeMeters = rangeMeters
        self.lossProbability = lossProbability
        self.latency = latency
        self.captureThresholdDb = captureThresholdDb
    }

    /// One frame as a receiver hears it: when it was on the air and how loud.
    public struct Heard: Sendable, Equatable {
        public var onAir: ClosedRange<Duration>
        public var rssi: Double

        public init(onAir: ClosedRange<Duration>, rssi: Double) {
            self.onAir = onAir
            self.rssi = rssi
        }
    }

    /// How long a receiver needs of a frame's preamble to lock onto it on `channel`.
    public static func lockTime(on channel: SimulatedRadioTransmitter.Channel) -> Duration {
        let symbolSeconds = Double(1 << max(5, min(12, channel.spreadingFactor))) / Double(max(1, channel.bandwidthHz))
        return .nanoseconds(Int64((Double(lockSymbols) * symbolSeconds * 1e9).rounded()))
    }

    /// Whether `mine` is lost at the receiver to `other`, another frame it hears on `channel`:
    /// they overlap by more than the lock time and `mine` is not ``captureThresholdDb``
    /// stronger. Never, without a capture threshold.
    public func collides(_ mine: Heard, with other: Heard, on channel: SimulatedRadioTransmitter.Channel) -> Bool {
        guard let captureThresholdDb else { return false }
        let (first, second) = mine.onAir.lowerBound <= other.onAir.lowerBound ? (mine, other) : (other, mine)
        guard first.onAir.upperBound > second.onAir.lowerBound + Self.lockTime(on: channel) else { return false }
        return mine.rssi < other.rssi + captureThresholdDb
    }

    /// How one frame sounds at the receiver, or `nil` when it is not heard at all.
    public func reception(
        from sender: SimulatedRadioTransmitter, to receiver: SimulatedRadioTransmitter, randomDraw: Double
    ) -> (rssi: Double, snr: Double)? {
        guard sender.channel == receiver.channel else { return nil }
        let distance = max(1, Self.distanceMeters(sender.latitude, sender.longitude, receiver.latitude, receiver.longitude))
        let pathLoss = 20 * log10(sender.channel.frequencyMHz) - 27.55 + 10 * pathLossExponent * log10(distance)
        let rssi = Double(sender.txPowerDBm) - pathLoss
        let noiseFloor = -174 + 10 * log10(Double(sender.channel.bandwidthHz)) + 6
        let snr = rssi - noiseFloor
        if rangeMeters > 0 {
            guard distance <= rangeMeters else { return nil }
        } else {
            guard snr >= Self.demodulationLimit(spreadingFactor: sender.channel.spreadingFactor) else { return nil }
        }
        guard randomDraw >= lossProbability else { return nil }
        return (rssi, snr)
    }

    /// The lowest SNR (dB) at which LoRa still demodulates at a spreading factor (Semtech).
    public static func demodulationLimit(spreadingFactor: Int) -> Double {
        -7.5 - 2.5 * Double(max(7, min(12, spreadingFactor)) - 7)
    }

    /// Great-circle distance in metres (haversine, mean Earth radius).
    public static func distanceMeters(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let radians = Double.pi / 180
        let dLat = (lat2 - lat1) * radians
        let dLon = (lon2 - lon1) * radians
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1 * radians) * cos(lat2 * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 6_371_008.8 * 2 * atan2(a.squareRoot(), (1 - a).squareRoot())
    }
}

/// Where a simulated radio is and how it transmits: what each datagram announces.
public struct SimulatedRadioTransmitter: Sendable, Equatable {
    /// The LoRa channel: radios hear each other only on the same one.
    public struct Channel: Sendable, Equatable {
        public var frequencyMHz: Double
        public var spreadingFactor: Int
        public var bandwidthHz: Int

        public init(frequencyMHz: Double, spreadingFactor: Int, bandwidthHz: Int) {
            self.frequencyMHz = frequencyMHz
            self.spreadingFactor = spreadingFactor
            self.bandwidthHz = bandwidthHz
        }

        public static func == (a: Channel, b: Channel) -> Bool {
            abs(a.frequencyMHz - b.frequencyMHz) < 0.000_5 && a.spreadingFactor == b.spreadingFactor && a.bandwidthHz == b.bandwidthHz
        }
    }

    public var latitude: Double
    public var longitude: Double
    public var txPowerDBm: Int
    public var channel: Channel

    public init(latitude: Double, longitude: Double, txPowerDBm: Int, channel: Channel) {
        self.latitude = latitude
        self.longitude = longitude
        self.txPowerDBm = txPowerDBm
        self.channel = channel
    }
}
