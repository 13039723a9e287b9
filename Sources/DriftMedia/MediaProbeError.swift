/// Why `MediaProbe` refused an upload: a machine-readable code plus a message that says
/// what was wrong with which input, e.g. "not a JPEG, PNG or WebP image".
public struct MediaProbeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is; the API maps these to one client-facing problem each.
    public enum Code: String, Sendable, Equatable {
        /// The magic bytes match no accepted format.
        case unknownFormat
        /// The file ends inside a structure (a header, box, element, page or chunk).
        case truncated
        /// A structure is present but inconsistent (bad size, bad CRC, zero timescale, …).
        case malformed
        /// The container holds no audio track or stream this probe understands.
        case noAudioTrack
        /// The container is valid but nothing in it gives a duration.
        case noDuration
        /// A valid but unsupported variant (e.g. a JPEG whose height is given by a DNL marker).
        case unsupported
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    static func truncated(_ what: String) -> MediaProbeError { MediaProbeError(.truncated, "\(what) is cut short") }
    static func malformed(_ what: String) -> MediaProbeError { MediaProbeError(.malformed, what) }
}
