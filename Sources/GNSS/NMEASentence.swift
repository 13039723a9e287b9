/// One framed NMEA 0183 (or AIS `!`) sentence whose checksum was verified.
///
/// `text` is the sentence exactly as received from `$`/`!` through the two
/// checksum digits, without line ending: what gpsd echoes. `fields` splits the
/// part between the start character and `*` on commas; `fields[0]` is the
/// address (`GPGGA`, `PSRF151`, `AIVDM`).
public struct NMEASentence: Sendable, Equatable, CustomStringConvertible {
    /// The sentence as received, without CR/LF.
    public let text: String
    /// Comma-separated fields between the start character and `*`; `fields[0]` is the address.
    public let fields: [Substring]

    /// Wraps an already verified sentence text. Use ``NMEAFramer`` or ``parse(_:)`` to verify.
    init(verifiedText: String) {
        text = verifiedText
        // Split on bytes (all ASCII): much faster than Character-based splitting.
        let utf8 = verifiedText.utf8
        var fields: [Substring] = []
        fields.reserveCapacity(24)
        var start = utf8.index(after: utf8.startIndex)
        var index = start
        var ended = false
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "*") {
                fields.append(Substring(utf8[start..<index]))
                start = utf8.index(after: index)
                if byte == UInt8(ascii: "*") {
                    ended = true
                    break
                }
            }
            index = utf8.index(after: index)
        }
        if !ended { fields.append(Substring(utf8[start..<utf8.endIndex])) }
        self.fields = fields
    }

    /// Frames one line on its own (checksum required); `nil` when the line is not a valid sentence.
    public static func parse(_ line: String) -> NMEASentence? {
        var framer = NMEAFramer()
        var result = framer.push(Array(line.utf8))
        if let last = framer.finish() { result.append(last) }
        return result.count == 1 ? result[0] : nil
    }

    /// `true` for `!` sentences (AIS encapsulation, e.g. `!AIVDM`).
    public var isEncapsulated: Bool { text.first == "!" }

    /// The address field: talker plus sentence type (`GNRMC`) or a proprietary address (`PMTK001`).
    public var address: Substring { fields[0] }

    /// `true` for proprietary sentences (`$P…`): the address starts with `P`.
    public var isProprietary: Bool { address.first == "P" && !isEncapsulated }

    /// The two-letter talker id (`GP`, `GN`, `BD`, …); `nil` for proprietary sentences.
    public var talker: Substring? {
        guard !isProprietary, address.count >= 5 else { return nil }
        return address.prefix(address.count - 3)
    }

    /// The three-letter sentence type (`GGA`, `RMC`); the vendor address for proprietary ones.
    public var type: Substring {
        guard !isProprietary, address.count >= 5 else { return address }
        return address.suffix(3)
    }

    /// Field `index` (1-based like NMEA documentation counts after the address), empty when absent.
    public subscript(index: Int) -> Substring {
        index < fields.count ? fields[index] : ""
    }

    public var description: String { text }
}
