/// What a bottle hides until it is opened: text, an optional image, an optional 2–5 s whisper.
///
/// Text is at most ``maximumTextLength`` characters (grapheme clusters) and
/// ``maximumTextBytes`` UTF-8 bytes, without control characters other than line
/// breaks and tabs. It may be empty only when an image or a whisper is attached.
public struct BottleContent: Sendable, Equatable, Codable {
    /// Longest bottle text, characters.
    public static let maximumTextLength = 2000
    /// Longest bottle text, UTF-8 bytes (stops pathological combining sequences).
    public static let maximumTextBytes = 8000

    public var text: String
    public var image: ImageRef?
    public var whisper: AudioRef?

    public init(text: String, image: ImageRef? = nil, whisper: AudioRef? = nil) {
        self.text = text
        self.image = image
        self.whisper = whisper
    }

    /// Checks the bounds above, the media metadata, and that media lie in `bottle`'s content folder.
    public func validate(for bottle: BottleID) throws(DomainValidationError) {
        try TextRules.check(text, field: "content.text", maximumLength: Self.maximumTextLength,
                            maximumBytes: Self.maximumTextBytes, allowLineBreaks: true)
        let blank = text.trimmingSpaces().isEmpty
        guard !blank || image != nil || whisper != nil else {
            throw DomainValidationError(field: "content", value: "", problem: "needs text, an image or a whisper")
        }
        if let image {
            try image.validate()
            guard image.path.rawValue.hasPrefix("media/bottles/\(bottle)/content/") else {
                throw DomainValidationError(field: "content.image.path", value: image.path.rawValue, problem: "must lie in the bottle's content folder")
            }
        }
        if let whisper {
            try whisper.validate(allowed: AudioRef.whisperDuration, field: "content.whisper")
            guard whisper.path.rawValue.hasPrefix("media/bottles/\(bottle)/content/") else {
                throw DomainValidationError(field: "content.whisper.path", value: whisper.path.rawValue, problem: "must lie in the bottle's content folder")
            }
        }
    }
}
