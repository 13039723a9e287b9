import DriftMesh

/// The payload of a `frames/{node}` message: a version byte (1) and one sealed mesh frame,
/// exactly as the mesh layer sealed it (the broker sees ciphertext only).
public enum GatewayFramePayload {
    public static let version: UInt8 = 1

    /// Why a payload was dropped.
    public enum Problem: Error, Equatable, Sendable {
        case empty
        case unknownVersion(UInt8)
        case tooShort(Int)
        case oversize(Int)

        /// A short reason for counters.
        public var reason: String {
            switch self {
            case .empty: "empty"
            case .unknownVersion: "unknown_version"
            case .tooShort: "too_short"
            case .oversize: "oversize"
            }
        }
    }

    /// The smallest frame worth opening (header and tag); smaller is malformed.
    public static let minimumFrameBytes = 20

    public static func encode(_ frame: [UInt8]) -> [UInt8] {
        [version] + frame
    }

    /// The sealed frame in `payload`. Authenticity is the mesh layer's job (``MeshNode/injectFromBridge(_:)``).
    public static func decode(_ payload: [UInt8]) throws(Problem) -> [UInt8] {
        guard let first = payload.first else { throw .empty }
        guard first == version else { throw .unknownVersion(first) }
        let frame = Array(payload.dropFirst())
        guard frame.count <= MeshFrame.maxBytes else { throw .oversize(payload.count) }
        guard frame.count >= minimumFrameBytes else { throw .tooShort(frame.count) }
        return frame
    }
}
