import DriftCore
import Foundation

/// The API's one JSON style: sorted keys, instants as ISO 8601 UTC with milliseconds.
enum APIJSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(iso(date))
        }
        return encoder
    }()

    static func data(_ value: some Encodable) throws -> Data {
        try encoder.encode(value)
    }

    static func string(_ value: some Encodable) -> String {
        (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    /// `YYYY-MM-DDTHH:MM:SS.sssZ` in UTC, by arithmetic (no calendar or formatter per call:
    /// a bottle list formats several instants per bottle).
    static func iso(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let seconds = milliseconds.floorDiv(1000)
        let days = seconds.floorDiv(86_400)
        let secondOfDay = seconds - days * 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = z.floorDiv(146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let text = String(value)
            return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay % 3600 / 60, 2)):"
            + "\(pad(secondOfDay % 60, 2)).\(pad(milliseconds.floorMod(1000), 3))Z"
    }
}

private extension Int64 {
    func floorDiv(_ divisor: Int64) -> Int64 { (self >= 0 ? self : self - divisor + 1) / divisor }
    func floorMod(_ divisor: Int64) -> Int64 { self - floorDiv(divisor) * divisor }
}

extension APIViews.Message {
    init(_ message: ChatMessage, viewer: ParticipantViewer, attachmentURL: String) {
        var attachment: APIViews.Media?
        switch message.attachment {
        case .image(let image): attachment = APIViews.Media(image: image, url: attachmentURL, kind: "image")
        case .audio(let audio): attachment = APIViews.Media(audio: audio, url: attachmentURL, kind: "audio")
        case nil: attachment = nil
        }
        self.init(id: message.id.description, participant: viewer.view(message.participant), sentAt: message.sentAt,
                  text: message.text, language: message.language.rawValue, attachment: attachment)
    }
}
