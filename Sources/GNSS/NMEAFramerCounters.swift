/// What an ``NMEAFramer`` accepted and what it dropped, by reason.
public struct NMEAFramerCounters: Sendable, Equatable {
    /// Sentences delivered (framing and checksum OK).
    public var accepted = 0
    /// Bytes outside any sentence (noise, binary junk, stray line ends inside junk, NUL).
    public var noiseBytes = 0
    /// Sentences cut short by the start of another (`$` or `!` inside a sentence).
    public var truncated = 0
    /// Sentences containing a byte that is not printable ASCII (NUL, binary).
    public var badCharacter = 0
    /// Sentences longer than ``NMEAFramer/maximumSentenceLength``.
    public var tooLong = 0
    /// Complete lines without `*hh` checksum.
    public var missingChecksum = 0
    /// Complete lines whose checksum did not match.
    public var badChecksum = 0
    /// Complete lines whose address field is not 2…32 letters or digits.
    public var badAddress = 0

    public init() {}

    /// All dropped sentences (not counting noise bytes).
    public var dropped: Int { truncated + badCharacter + tooLong + missingChecksum + badChecksum + badAddress }
}
