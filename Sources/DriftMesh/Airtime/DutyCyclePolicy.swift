/// The transmit-time rules for one channel: a duty-cycle limit over a window, a per-packet
/// dwell limit, and whether the rules expect listen-before-talk.
///
/// Build one with ``forChannel(region:frequencyMHz:bandwidthHz:)``: the channel's edges
/// (centre ± bandwidth / 2) must lie inside one of the region's sub-bands, since a channel
/// that straddles two sub-bands is governed by neither. Figures and sources are in
/// docs/airtime.md.
public struct DutyCyclePolicy: Sendable, Hashable {
    /// The region the policy was derived for.
    public var region: AirtimeRegion
    /// The sub-band (or whole band) that contains the channel, in MHz.
    public var subBandMHz: ClosedRange<Double>
    /// Short human name of the rule, e.g. `ETSI EN 300 220-2 band P (869.40–869.65 MHz, 10 %)`.
    public var rule: String
    /// Maximum fraction of ``window`` this box may transmit (0.01 = 1 %); `nil` = no duty-cycle limit.
    public var dutyCycle: Double?
    /// The sliding window over which the duty cycle is measured.
    public var window: Duration
    /// Longest single transmission allowed; `nil` = no dwell limit.
    public var maxDwell: Duration?
    /// The region expects listen-before-talk (the radio layer's business; recorded for reports).
    public var listenBeforeTalk: Bool

    public init(
        region: AirtimeRegion, subBandMHz: ClosedRange<Double>, rule: String, dutyCycle: Double?,
        window: Duration = .seconds(3600), maxDwell: Duration? = nil, listenBeforeTalk: Bool = false
    ) {
        self.region = region
        self.subBandMHz = subBandMHz
        self.rule = rule
        self.dutyCycle = dutyCycle
        self.window = window
        self.maxDwell = maxDwell
        self.listenBeforeTalk = listenBeforeTalk
    }

    /// A periodic transmission's period on a channel with `dutyCycle` (0…1; `nil` where there
    /// is none): `standard`, or `seconds` ÷ the duty cycle where that is longer, at most a day.
    /// The hello period and a camp's announce interval, when the configuration leaves them out.
    public static func period(standard: Duration, seconds: Double, dutyCycle: Double?) -> Duration {
        guard let dutyCycle, dutyCycle > 0 else { return standard }
        return max(standard, .seconds(Int(min(seconds / dutyCycle, 86_400).rounded())))
    }

    /// Transmit time allowed per ``window``; `nil` = unlimited.
    public var airtimeLimit: Duration? {
        guard let dutyCycle else { return nil }
        return .microseconds(Int64(((window / .microseconds(1)) * dutyCycle).rounded()))
    }

    /// The policy for a channel centred on `frequencyMHz` with `bandwidthHz` of bandwidth.
    ///
    /// - Throws: ``DutyCycleError`` when the channel is not wholly inside one sub-band the region
    ///   allows for general (non-specific) devices, or a parameter is not a positive number.
    public static func forChannel(
        region: AirtimeRegion, frequencyMHz: Double, bandwidthHz: Double
    ) throws(DutyCycleError) -> DutyCyclePolicy {
        guard frequencyMHz.isFinite, frequencyMHz > 0, bandwidthHz.isFinite, bandwidthHz > 0 else {
            throw DutyCycleError(region: region, frequencyMHz: frequencyMHz, bandwidthHz: bandwidthHz,
                                 reason: "frequency and bandwidth must be positive numbers")
        }
        let half = bandwidthHz / 2_000_000
        let low = frequencyMHz - half
        let high = frequencyMHz + half
        // A tolerance of 1 Hz so that 869.525 MHz ± 125 kHz fits 869.40–869.65 despite rounding.
        let epsilon = 1e-6
        for band in RegionSubBand.table(for: region)
        where low >= band.rangeMHz.lowerBound - epsilon && high <= band.rangeMHz.upperBound + epsilon {
            return DutyCyclePolicy(
                region: region, subBandMHz: band.rangeMHz, rule: band.rule, dutyCycle: band.dutyCycle,
                maxDwell: band.maxDwell, listenBeforeTalk: band.listenBeforeTalk)
        }
        let bands = RegionSubBand.table(for: region)
            .map { "\(format($0.rangeMHz.lowerBound))–\(format($0.rangeMHz.upperBound))" }
            .joined(separator: ", ")
        throw DutyCycleError(
            region: region, frequencyMHz: frequencyMHz, bandwidthHz: bandwidthHz,
            reason: "channel \(format(low))–\(format(high)) MHz is not inside one allowed sub-band (\(bands) MHz)")
    }

    /// Why a transmission of `airtime` can never be sent under this policy, or `nil` if it can.
    public func refusal(airtime: Duration) -> AirtimeRefusal? {
        if let maxDwell, airtime > maxDwell { return .exceedsDwell(airtime: airtime, limit: maxDwell) }
        if let limit = airtimeLimit, airtime > limit { return .exceedsBudget(airtime: airtime, limit: limit) }
        return nil
    }

    private static func format(_ mhz: Double) -> String {
        var text = String(mhz)
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}

/// A channel the region's rules do not cover.
public struct DutyCycleError: Error, Sendable, Equatable, CustomStringConvertible {
    public var region: AirtimeRegion
    public var frequencyMHz: Double
    public var bandwidthHz: Double
    public var reason: String
    public var description: String {
        "\(region.rawValue) at \(frequencyMHz) MHz, \(bandwidthHz / 1000) kHz: \(reason)"
    }
}

/// Why a single transmission can never go out, whatever the wait.
public enum AirtimeRefusal: Sendable, Hashable, CustomStringConvertible {
    /// Longer than the region's per-transmission dwell limit.
    case exceedsDwell(airtime: Duration, limit: Duration)
    /// Longer than the whole budget of one window.
    case exceedsBudget(airtime: Duration, limit: Duration)

    public var description: String {
        switch self {
        case let .exceedsDwell(airtime, limit): "time on air \(airtime) exceeds the dwell limit \(limit)"
        case let .exceedsBudget(airtime, limit): "time on air \(airtime) exceeds the whole budget \(limit) of a window"
        }
    }
}
