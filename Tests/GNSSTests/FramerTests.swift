import GNSS
import Testing

@Test func framerAcceptsAChecksummedSentence() {
    let sentence = NMEASentence.parse("$GPGLL,4916.45,N,12311.12,W,225444,A,*1D")
    #expect(sentence?.address == "GPGLL")
}
