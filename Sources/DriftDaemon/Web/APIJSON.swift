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

    static func iso(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = Date(timeIntervalSince1970: Double(milliseconds.floorDiv(1000)))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: seconds)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0,
                      parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, Int(milliseconds.floorMod(1000)))
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
