/// A media file's path relative to the data directory, e.g.
/// `media/bottles/{bottleId}/content/image.webp` or `media/bottles/{bottleId}/chat/{messageId}/audio.m4a`.
///
/// The database stores these, never URLs or absolute paths. Validation rejects
/// anything that could escape the media tree: absolute paths, `.`/`..`, empty
/// components, and characters outside `A–Z a–z 0–9 . _ -`.
public struct MediaPath: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// Validates a stored relative path.
    /// - Throws: ``DomainValidationError`` for anything outside `media/` or unsafe.
    public init(_ rawValue: String) throws(DomainValidationError) {
        let components = rawValue.split(separator: "/", omittingEmptySubsequences: false)
        guard rawValue.utf8.count <= 255, components.count >= 2, components.first == "media",
              components.allSatisfy(MediaPath.isSafeComponent) else {
            throw DomainValidationError(field: "mediaPath", value: rawValue,
                                        problem: "must be a relative path under media/ with plain file names")
        }
        self.rawValue = rawValue
    }

    /// `media/bottles/{bottle}`: the folder erased with the bottle.
    public static func bottleFolder(_ bottle: BottleID) -> MediaPath {
        MediaPath(trusted: "media/bottles/\(bottle)")
    }

    /// `media/bottles/{bottle}/content/{fileName}`.
    public static func content(bottle: BottleID, fileName: String) throws(DomainValidationError) -> MediaPath {
        try MediaPath("media/bottles/\(bottle)/content/\(fileName)")
    }

    /// `media/bottles/{bottle}/chat/{message}/{fileName}`.
    public static func chat(bottle: BottleID, message: MessageID, fileName: String) throws(DomainValidationError) -> MediaPath {
        try MediaPath("media/bottles/\(bottle)/chat/\(message)/\(fileName)")
    }

    /// Whether this path lies in `bottle`'s media folder.
    public func belongs(to bottle: BottleID) -> Bool {
        rawValue.hasPrefix("media/bottles/\(bottle)/")
    }

    public var description: String { rawValue }

    private init(trusted: String) { rawValue = trusted }

    static func isSafeComponent(_ component: Substring) -> Bool {
        guard !component.isEmpty, component != ".", component != "..", component.utf8.count <= 100 else { return false }
        return component.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let raw = try container.decode(String.self)
        do { self = try MediaPath(raw) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
