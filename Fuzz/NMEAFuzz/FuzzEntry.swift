// libFuzzer entry point for the NMEA framer, parser and epoch assembler.
// Built outside SwiftPM by Fuzz/NMEAFuzz/run.sh with `swiftc -sanitize=fuzzer,address`.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNMEA(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var framer = NMEAFramer(skipsCommentLines: size % 2 == 0)
    var assembler = EpochAssembler()
    var sentences = framer.push(bytes)
    if let last = framer.finish() { sentences.append(last) }
    precondition(framer.bufferedByteCount <= 2 * NMEAFramer.maximumSentenceLength, "framer buffer unbounded")
    for sentence in sentences {
        precondition(NMEASentence.parse(sentence.text) == sentence, "sentence does not re-frame")
        if let message = try? NMEAParser.parse(sentence), let epoch = assembler.consume(message, talker: sentence.talker) {
            _ = GPSDJSON.tpv(epoch.fix)
            _ = GPSDJSON.sky(epoch.sky)
        }
    }
    if let epoch = assembler.finish() {
        _ = GPSDJSON.tpv(epoch.fix)
    }
    return 0
}
