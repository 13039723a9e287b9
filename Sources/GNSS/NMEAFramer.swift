/// Cuts a byte stream from a receiver into verified NMEA 0183 / AIS sentences.
///
/// Push bytes as they arrive; complete sentences come back. Rules (the same
/// outcome as gpsd's packet lexer on the regression captures):
/// - A sentence starts at `$` or `!` and ends at CR or LF. Anything outside a
///   sentence is noise and counted, never buffered.
/// - `$` or `!` inside a sentence starts the injected sentence there. The cut
///   one is kept aside: if the injected sentence ends with a line end and the
///   next byte is not a start character, the cut sentence resumes (a packet
///   collision, as an iSync GPSDO makes); otherwise it is dropped as truncated.
///   A doubled `$$` is one start.
/// - Every byte inside must be printable ASCII; NUL or binary drops the sentence.
/// - At most ``maximumSentenceLength`` bytes: NMEA says 82, real receivers send
///   more; longer ones are dropped, so memory stays bounded on hostile input.
/// - A checksum `*hh` (hex, either case) must end the sentence and match the XOR
///   of the bytes between the start character and `*`. Sentences without a
///   checksum are rejected — no exception (gpsd rejects them too).
/// - The address (first field) must be 2…32 letters or digits.
public struct NMEAFramer: Sendable {
    /// The longest sentence accepted, in bytes from the start character through the checksum.
    public static let maximumSentenceLength = 1024

    /// What was accepted and dropped so far.
    public private(set) var counters = NMEAFramerCounters()

    private var buffer: [UInt8] = []
    private var inSentence = false
    private var overflowed = false
    /// A sentence cut by the start of another, waiting to resume after it.
    private var interrupted: [UInt8] = []
    private var resumeCandidate = false

    /// Whether lines starting with `#` are skipped (gpsd's capture-file comments).
    public let skipsCommentLines: Bool
    private var atLineStart = true
    private var inComment = false

    /// A framer; `skipsCommentLines` for capture files whose `#` lines are a header (as gpsfake reads them).
    public init(skipsCommentLines: Bool = false) {
        self.skipsCommentLines = skipsCommentLines
        buffer.reserveCapacity(128)
    }

    /// Bytes held for sentences not yet complete (bounded by twice ``maximumSentenceLength``).
    public var bufferedByteCount: Int { buffer.count + interrupted.count }

    /// Feeds bytes; returns the sentences they completed, in order.
    public mutating func push(_ bytes: some Sequence<UInt8>) -> [NMEASentence] {
        var sentences: [NMEASentence] = []
        for byte in bytes {
            if let sentence = push(byte: byte) { sentences.append(sentence) }
        }
        return sentences
    }

    /// Feeds one byte; returns a sentence when this byte completed one.
    public mutating func push(byte: UInt8) -> NMEASentence? {
        let lineStart = atLineStart
        atLineStart = byte == UInt8(ascii: "\n")
        if inComment {
            if byte == UInt8(ascii: "\n") { inComment = false }
            return nil
        }
        if skipsCommentLines, lineStart, !inSentence, byte == UInt8(ascii: "#") {
            inComment = true
            return nil
        }
        switch byte {
        case UInt8(ascii: "$"), UInt8(ascii: "!"):
            dropInterrupted()
            if inSentence {
                if buffer.count == 1 {
                    // `$$`: one start, the first byte is noise.
                    counters.noiseBytes += 1
                } else if overflowed {
                    counters.tooLong += 1
                } else {
                    interrupted = buffer
                }
            }
            start(with: byte)
            return nil
        case UInt8(ascii: "\r"), UInt8(ascii: "\n"):
            guard inSentence else { return nil }   // line ends between sentences are not noise
            inSentence = false
            resumeCandidate = !interrupted.isEmpty
            if overflowed {
                counters.tooLong += 1
                return nil
            }
            return finishLine()
        default:
            if !inSentence, resumeCandidate {
                swap(&buffer, &interrupted)
                interrupted.removeAll(keepingCapacity: true)
                resumeCandidate = false
                inSentence = true
                overflowed = false
            }
            guard inSentence else {
                counters.noiseBytes += 1
                return nil
            }
            guard byte >= 0x20, byte < 0x7F else {
                counters.badCharacter += 1
                inSentence = false
                buffer.removeAll(keepingCapacity: true)
                return nil
            }
            if overflowed { return nil }
            if buffer.count >= Self.maximumSentenceLength {
                overflowed = true
                buffer.removeAll(keepingCapacity: true)
                return nil
            }
            buffer.append(byte)
            return nil
        }
    }

    /// Ends the stream: a last sentence without line end is checked and returned if valid.
    public mutating func finish() -> NMEASentence? {
        dropInterrupted()
        guard inSentence else { return nil }
        inSentence = false
        if overflowed {
            counters.tooLong += 1
            return nil
        }
        return finishLine()
    }

    private mutating func dropInterrupted() {
        if !interrupted.isEmpty {
            counters.truncated += 1
            interrupted.removeAll(keepingCapacity: true)
        }
        resumeCandidate = false
    }

    private mutating func start(with byte: UInt8) {
        buffer.removeAll(keepingCapacity: true)
        buffer.append(byte)
        inSentence = true
        overflowed = false
    }

    private mutating func finishLine() -> NMEASentence? {
        defer { buffer.removeAll(keepingCapacity: true) }
        let count = buffer.count
        guard count >= 4, buffer[count - 3] == UInt8(ascii: "*"),
              let high = Self.hexValue(buffer[count - 2]), let low = Self.hexValue(buffer[count - 1])
        else {
            counters.missingChecksum += 1
            return nil
        }
        var sum: UInt8 = 0
        var addressLength = 0
        var inAddress = true
        var addressOK = true
        for index in 1..<(count - 3) {
            let byte = buffer[index]
            sum ^= byte
            if inAddress {
                if byte == UInt8(ascii: ",") {
                    inAddress = false
                } else if byte == UInt8(ascii: "*") {
                    addressOK = false
                } else {
                    addressLength += 1
                    let isAlnum = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    if !isAlnum { addressOK = false }
                }
            }
        }
        guard sum == high << 4 | low else {
            counters.badChecksum += 1
            return nil
        }
        guard addressOK, addressLength >= 2, addressLength <= 32 else {
            counters.badAddress += 1
            return nil
        }
        counters.accepted += 1
        return NMEASentence(verifiedText: String(decoding: buffer, as: UTF8.self))
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
