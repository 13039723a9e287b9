/// Why a frame could not be encoded, decoded, opened, relayed, split or reassembled.
///
/// Every hostile input ends in one of these (never a trap); callers drop the frame and
/// count the case (`MeshWireError.Reason` is a stable label for counters).
public enum MeshWireError: Error, Hashable, Sendable {
    /// Fewer bytes than the header (or header + tags) needs.
    case truncated(length: Int, needed: Int)
    /// More than `MeshFrame.maxBytes`.
    case oversize(length: Int)
    /// The version nibble is not one this build speaks (only 1 today).
    case badVersion(UInt8)
    /// The kind nibble names no `FrameKind`.
    case badKind(UInt8)
    /// Reserved flag bits are set.
    case badFlags(UInt8)
    /// `hopStart` above 7, or more hops taken than allowed.
    case badHops(hopStart: UInt8, hopsTaken: UInt8)
    /// Fragment index/count impossible (count < 2, count > 16, index ≥ count).
    case badFragment(index: UInt8, count: UInt8)
    /// The expiry cannot be carried (before 2025-01-01 or after 2056-11).
    case expiryOutOfRange(minute: UInt32)
    /// The plaintext does not fit one frame with this header shape.
    case plaintextTooLarge(size: Int, max: Int)
    /// The payload needs more than `MeshFrame.maxFragments` pieces (or `maxChunk` < 1).
    case payloadTooLarge(size: Int, maxChunk: Int)
    /// The network hint differs: a frame of another mesh (or noise).
    case wrongNetwork(hint: UInt8)
    /// The AEAD tag does not verify: forged, altered, or sealed with another key.
    case authenticationFailed
    /// A network key, private key or public key of the wrong length or form.
    case badKey(String)
    /// A relay was asked to forward a frame that has no hops left.
    case hopLimitReached

    /// A short stable label for metrics (`truncated`, `bad_version`, …).
    public var reason: String {
        switch self {
        case .truncated: "truncated"
        case .oversize: "oversize"
        case .badVersion: "bad_version"
        case .badKind: "bad_kind"
        case .badFlags: "bad_flags"
        case .badHops: "bad_hops"
        case .badFragment: "bad_fragment"
        case .expiryOutOfRange: "expiry_out_of_range"
        case .plaintextTooLarge: "plaintext_too_large"
        case .payloadTooLarge: "payload_too_large"
        case .wrongNetwork: "wrong_network"
        case .authenticationFailed: "authentication_failed"
        case .badKey: "bad_key"
        case .hopLimitReached: "hop_limit_reached"
        }
    }
}
