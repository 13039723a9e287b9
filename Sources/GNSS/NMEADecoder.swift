/// Bytes in, gpsd-style regression output out: the framer, parser and epoch assembler in one.
///
/// Feed chunks with ``push(_:)``; each returns the lines produced so far: with
/// `echo`, every accepted sentence verbatim; at each epoch end a `TPV` line and,
/// once there is anything to say about the sky, a `SKY` line. Call ``finish()`` at end of input for the last epoch.
public struct NMEADecoder: Sendable {
    /// Whether accepted sentences are echoed before the reports.
    public var echo: Bool
    public private(set) var framer: NMEAFramer
    private var assembler = EpochAssembler()
    /// Well-framed sentences whose content could not be used.
    public private(set) var parseErrors = 0
    /// Epochs reported so far.
    public private(set) var epochCount = 0

    /// A decoder; `skipsCommentLines` for capture files with `#` header lines.
    public init(echo: Bool, skipsCommentLines: Bool = true) {
        self.echo = echo
        framer = NMEAFramer(skipsCommentLines: skipsCommentLines)
    }

    /// Feeds bytes; returns the output lines (without newline) they produced.
    public mutating func push(_ bytes: some Sequence<UInt8>) -> [String] {
        var lines: [String] = []
        for sentence in framer.push(bytes) {
            handle(sentence, into: &lines)
        }
        return lines
    }

    /// Ends the input: the last sentence (if unterminated) and the last epoch.
    public mutating func finish() -> [String] {
        var lines: [String] = []
        if let sentence = framer.finish() { handle(sentence, into: &lines) }
        if let epoch = assembler.finish() { report(epoch, into: &lines) }
        return lines
    }

    /// Feeds one sentence through parser and assembler; returns the epoch it closed.
    public mutating func consume(_ sentence: NMEASentence) -> GNSSEpoch? {
        do {
            let message = try NMEAParser.parse(sentence)
            return assembler.consume(message, talker: sentence.talker)
        } catch {
            parseErrors += 1
            return nil
        }
    }

    /// Decodes a whole capture: the accepted sentences and the epochs, in order.
    public static func decode(_ bytes: some Sequence<UInt8>) -> (sentences: [NMEASentence], epochs: [GNSSEpoch]) {
        var framer = NMEAFramer(skipsCommentLines: true)
        var assembler = EpochAssembler()
        var sentences = framer.push(bytes)
        if let last = framer.finish() { sentences.append(last) }
        var epochs: [GNSSEpoch] = []
        for sentence in sentences {
            if let message = try? NMEAParser.parse(sentence), let epoch = assembler.consume(message, talker: sentence.talker) {
                epochs.append(epoch)
            }
        }
        if let epoch = assembler.finish() { epochs.append(epoch) }
        return (sentences, epochs)
    }

    private mutating func handle(_ sentence: NMEASentence, into lines: inout [String]) {
        let closed = consume(sentence)
        if let closed { report(closed, into: &lines) }
        if echo { lines.append(sentence.text) }
    }

    private mutating func report(_ epoch: GNSSEpoch, into lines: inout [String]) {
        epochCount += 1
        lines.append(GPSDJSON.tpv(epoch.fix))
        if epoch.sky != SkyView() { lines.append(GPSDJSON.sky(epoch.sky)) }
    }
}
