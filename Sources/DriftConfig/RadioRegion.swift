import DriftMesh

/// `radio.region`: the LoRa regulatory region — the mesh's `AirtimeRegion` (whose duty-cycle
/// rules the airtime budget applies), plus the band `radio.frequency_mhz` must fall in and its
/// default channel.
///
/// Bands are the region's whole ISM band; duty-cycle rules inside the band are the
/// airtime budget's business, not the configuration's.
public typealias RadioRegion = AirtimeRegion

extension AirtimeRegion {
    /// Lowest and highest allowed centre frequency in MHz.
    public var band: ClosedRange<Double> {
        switch self {
        case .eu868: 863.0...870.0
        case .eu433: 433.05...434.79
        case .us915: 902.0...928.0
        case .au915: 915.0...928.0
        case .as923: 915.0...928.0
        case .kr920: 920.9...923.3
        case .in865: 865.0...867.0
        case .ru864: 864.0...870.0
        case .cn470: 470.0...510.0
        }
    }

    /// The frequency used when `radio.frequency_mhz` is not set.
    public var defaultFrequencyMHz: Double {
        switch self {
        case .eu868: 869.525
        case .eu433: 433.875
        case .us915: 906.875
        case .au915: 919.875
        case .as923: 923.2
        case .kr920: 921.9
        case .in865: 865.4625
        case .ru864: 868.9
        case .cn470: 470.3
        }
    }
}
