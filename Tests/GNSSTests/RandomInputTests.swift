import GNSS
import Testing

/// A small deterministic generator (SplitMix64) so failures reproduce.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Random input")
struct RandomInputTests {
    /// Any bytes in: no crash, the buffer stays bounded, every sentence out is valid.
    @Test(arguments: [1, 2, 3, 4])
    func randomBytesNeverCrashAndStayBounded(seed: UInt64) throws {
        var generator = SplitMix64(state: seed)
        // Bytes biased towards NMEA's alphabet so that framing paths are exercised.
        let alphabet = Array("$!*,.\r\n0123456789ABCDEFGPNRMCVTL".utf8)
        var decoder = NMEADecoder(echo: true)
        var framer = NMEAFramer()
        for _ in 0..<200 {
            var chunk: [UInt8] = []
            for _ in 0..<Int.random(in: 1...600, using: &generator) {
                chunk.append(Bool.random(using: &generator)
                    ? alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
                    : UInt8.random(in: 0...255, using: &generator))
            }
            // Splice in a valid sentence now and then, cut at a random point.
            if Int.random(in: 0..<4, using: &generator) == 0 {
                let valid = Array(checksummed("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,").utf8)
                chunk += valid.prefix(Int.random(in: 0...valid.count, using: &generator))
            }
            _ = decoder.push(chunk)
            for sentence in framer.push(chunk) {
                #expect(NMEASentence.parse(sentence.text) == sentence)
            }
            #expect(framer.bufferedByteCount <= 2 * NMEAFramer.maximumSentenceLength)
        }
        _ = decoder.finish()
    }

    /// Valid sentences with fields replaced by random printable junk still parse or fail with a typed error.
    @Test func randomFieldsNeverCrashTheParserOrAssembler() throws {
        var generator = SplitMix64(state: 42)
        let templates = [
            "GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
            "GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W",
            "GNGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1,1",
            "GPGSV,2,1,08,01,40,083,46,02,17,308,41,12,07,344,39,14,22,228,45",
            "GNGNS,051347.00,6001.336799,N,03014.169008,E,AAN,09,0.9,16.5,18.0,,,V",
            "GPZDA,201530.00,04,07,2002,00,00",
            "GPVTG,054.7,T,034.4,M,005.5,N,010.2,K",
            "GPGLL,4916.45,N,12311.12,W,225444,A,",
        ]
        let junk = Array("-+.0123456789eE,NSEWAVx:".utf8)
        var assembler = EpochAssembler()
        for _ in 0..<5000 {
            var fields = templates[Int.random(in: 0..<templates.count, using: &generator)].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let index = Int.random(in: 1..<fields.count, using: &generator)
            fields[index] = String(decoding: (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                junk[Int.random(in: 0..<junk.count, using: &generator)]
            }, as: UTF8.self)
            guard let sentence = NMEASentence.parse(checksummed(fields.joined(separator: ","))) else { continue }
            do {
                _ = assembler.consume(try NMEAParser.parse(sentence), talker: sentence.talker)
            } catch {
                #expect(!error.reason.isEmpty)
            }
        }
        _ = assembler.finish()
    }
}
