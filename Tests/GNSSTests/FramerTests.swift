import GNSS
import Testing

/// Frames `text` in one push plus `finish()`.
private func frame(_ text: String, comments: Bool = false) -> (sentences: [String], counters: NMEAFramerCounters) {
    frame(Array(text.utf8), comments: comments)
}

private func frame(_ bytes: [UInt8], comments: Bool = false) -> (sentences: [String], counters: NMEAFramerCounters) {
    var framer = NMEAFramer(skipsCommentLines: comments)
    var out = framer.push(bytes).map(\.text)
    if let last = framer.finish() { out.append(last.text) }
    return (out, framer.counters)
}

private let gll = "$GPGLL,4916.45,N,12311.12,W,225444,A,*1D"
private let rmc = "$GPRMC,000231.42,A,4829.0005,N,00022.0016,E,0.16,212.28,220899,,,A*59"

@Suite("NMEA framing")
struct FramerTests {
    @Test func acceptsSentencesWithCRLFOrLFOrNoLineEnd() {
        let result = frame("\(gll)\r\n\(rmc)\n\(gll)")
        #expect(result.sentences == [gll, rmc, gll])
        #expect(result.counters.accepted == 3)
        #expect(result.counters.dropped == 0)
    }

    @Test func checksumHexIsCaseInsensitive() {
        let lower = "$GPRMC,205150.00,V,,,,,,,,,,,V*4a"   // magellan-ec10.log
        #expect(frame(lower).sentences == [lower])
    }

    @Test func rejectsBadAndMissingChecksums() {
        let bad = String(gll.dropLast()) + "E"
        let result = frame("\(bad)\r\n$GPTXT,01,01,02,no checksum here\r\n$POLYN,1,2\r\n\(gll)\r\n")
        #expect(result.sentences == [gll])
        #expect(result.counters.badChecksum == 1)
        #expect(result.counters.missingChecksum == 2)
    }

    @Test func skipsNoiseBinaryJunkAndLeadingSpaces() {
        var bytes: [UInt8] = [0xB5, 0x62, 0x01, 0x07, 0x00, 0xFF, 0x0D]
        bytes += Array("garbage  \(gll)\r\n".utf8)
        bytes += [0x00, 0x00, 0x80]
        bytes += Array(" \(rmc)\n".utf8)
        let result = frame(bytes)
        #expect(result.sentences == [gll, rmc])
        #expect(result.counters.noiseBytes > 10)
    }

    @Test func dropsSentencesWithNULOrBinaryInside() {
        var bytes = Array("$GPGLL,4916.45,N,12311".utf8)
        bytes.append(0)
        bytes += Array(".12,W,225444,A,*1D\r\n\(gll)\r\n".utf8)
        let result = frame(bytes)
        #expect(result.sentences == [gll])
        #expect(result.counters.badCharacter == 1)
    }

    @Test func doubledDollarIsOneStart() {
        let result = frame("$\(gll)\r\n$$PSTMANTENNASTATUS,0,0,0,0*51\r\n")
        #expect(result.sentences == [gll, "$PSTMANTENNASTATUS,0,0,0,0*51"])
    }

    @Test func splicedSentenceIsDroppedAndTheInjectedOneKept() {
        // A sentence cut by the start of another, then a new sentence: the cut one is lost.
        let result = frame("$GPGSV,3,1,11,23,87,270,,13,68,270,,24,60,270,\(rmc)\r\n\(gll)\r\n")
        #expect(result.sentences == [rmc, gll])
        #expect(result.counters.truncated == 1)
    }

    @Test func collisionResumesTheInterruptedSentence() {
        // An iSync-style packet collision: a sentence injected mid-sentence, then the rest.
        let gsv = "$GPGSV,4,1,15,02,11,115,36,05,34,060,48,07,00,023,,13,56,090,49*71"
        let ptnta = "$PTNTA,20160203131539,2,T4,000000066,+107,3,0,3*18"
        let cut = gsv.index(gsv.startIndex, offsetBy: 28)
        let text = String(gsv[..<cut]) + ptnta + "\n" + String(gsv[cut...]) + "\n"
        let result = frame(text)
        #expect(result.sentences == [ptnta, gsv])
        #expect(result.counters.truncated == 0)
    }

    @Test func longLinesAreDroppedWithinABoundedBuffer() {
        var framer = NMEAFramer()
        let long = "$GPTXT," + String(repeating: "A", count: 5000) + "*00\r\n"
        var maxBuffered = 0
        for byte in long.utf8 {
            _ = framer.push(byte: byte)
            maxBuffered = max(maxBuffered, framer.bufferedByteCount)
        }
        let after = framer.push(Array("\(gll)\r\n".utf8))
        #expect(after.map(\.text) == [gll])
        #expect(framer.counters.tooLong == 1)
        #expect(maxBuffered <= NMEAFramer.maximumSentenceLength)
    }

    @Test func sentencesUpToTheLimitAreAccepted() {
        // A 200-byte proprietary sentence: longer than NMEA's 82, as real receivers send.
        let body = "PXXX," + String(repeating: "1,", count: 95)
        var sum: UInt8 = 0
        for byte in body.utf8 { sum ^= byte }
        let hex = String(sum, radix: 16, uppercase: true)
        let sentence = "$" + body + "*" + (hex.count == 1 ? "0" + hex : hex)
        #expect(frame(sentence + "\r\n").sentences == [sentence])
    }

    @Test func byteByBytePushGivesTheSameSentences() {
        let text = "junk\(gll)\r\n$$\(rmc.dropFirst())\n\(gll)"
        var framer = NMEAFramer()
        var out: [String] = []
        for byte in text.utf8 {
            if let sentence = framer.push(byte: byte) { out.append(sentence.text) }
        }
        if let last = framer.finish() { out.append(last.text) }
        #expect(out == frame(text).sentences)
        #expect(out == [gll, rmc, gll])
    }

    @Test func commentLinesAreSkippedOnlyWhenAsked() {
        let text = "# header $GPGLL,4916.45,N,12311.12,W,225444,A,*1D\n\(rmc)\n"
        #expect(frame(text, comments: true).sentences == [rmc])
        #expect(frame(text, comments: false).sentences == [gll, rmc])
    }

    @Test func aisSentencesAreFramed() {
        let ais = "!AIVDM,1,1,,B,339FEj5P00PIwujN?fQv4?wPRD5:,0*64"
        let result = frame("\(ais)\r\n")
        #expect(result.sentences == [ais])
        #expect(NMEASentence.parse(ais)?.isEncapsulated == true)
    }

    @Test func addressMustBeAlphanumeric() {
        // Checksum of ",1,2" is computed over the bytes after `$`; the empty address is refused.
        var sum: UInt8 = 0
        for byte in ",1,2".utf8 { sum ^= byte }
        let hex = String(sum, radix: 16, uppercase: true)
        let result = frame("$,1,2*" + (hex.count == 1 ? "0" + hex : hex) + "\n")
        #expect(result.sentences.isEmpty)
        #expect(result.counters.badAddress == 1)
    }
}
