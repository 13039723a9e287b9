extension CampMessage {
    /// The wire bytes (without the mesh port byte).
    /// - Throws: ``CampCodecError/badLength(field:length:allowed:)`` for a text field out of its limits.
    public func encoded() throws(CampCodecError) -> [UInt8] {
        var writer = CampByteWriter()
        writer.byte(Self.version << 4 | kind.rawValue)
        switch self {
        case .ping(let nonce):
            writer.uint32(nonce)
        case .announce(let announce):
            try writer.text(announce.name, field: "name", allowed: 1...CampLimits.name)
            writer.position(announce.position)
            writer.uint16(announce.members)
            try writer.text(announce.note, field: "note", allowed: 0...CampLimits.note)
        case .chat(let chat):
            try writer.text(chat.camp, field: "camp", allowed: 0...CampLimits.name)
            try writer.text(chat.text, field: "text", allowed: 1...CampLimits.text)
        case .request(let request):
            writer.byte(request.resource.rawValue)
            try writer.text(request.text, field: "text", allowed: 0...CampLimits.text)
        case .event(let event):
            try writer.text(event.title, field: "title", allowed: 1...CampLimits.title)
            writer.uint32(event.startMinute)
            writer.uint16(event.durationMinutes)
            try writer.text(event.text, field: "text", allowed: 0...CampLimits.text)
        case .emergency(let emergency):
            writer.byte(emergency.emergency.rawValue)
            try writer.text(emergency.text, field: "text", allowed: 1...CampLimits.text)
            writer.position(emergency.position)
        }
        return writer.bytes
    }

    /// Decodes wire bytes (without the mesh port byte). Every malformed input throws.
    public init(decoding bytes: [UInt8]) throws(CampCodecError) {
        var reader = CampByteReader(bytes)
        guard let header = reader.nextByte() else { throw .empty }
        guard header >> 4 == Self.version else { throw .badVersion(header >> 4) }
        guard let kind = Kind(rawValue: header & 0x0F) else { throw .badKind(header & 0x0F) }
        switch kind {
        case .ping:
            self = .ping(nonce: try reader.uint32("nonce"))
        case .announce:
            let name = try reader.text("name", allowed: 1...CampLimits.name)
            let position = try reader.position()
            let members = try reader.uint16("members")
            let note = try reader.text("note", allowed: 0...CampLimits.note)
            self = .announce(Announce(name: name, position: position, members: members, note: note))
        case .chat:
            let camp = try reader.text("camp", allowed: 0...CampLimits.name)
            self = .chat(Chat(camp: camp, text: try reader.text("text", allowed: 1...CampLimits.text)))
        case .request:
            let raw = try reader.byte("resource")
            guard let resource = ResourceKind(rawValue: raw) else { throw .badEnum(field: "resource", value: raw) }
            self = .request(ResourceRequest(resource: resource, text: try reader.text("text", allowed: 0...CampLimits.text)))
        case .event:
            let title = try reader.text("title", allowed: 1...CampLimits.title)
            let start = try reader.uint32("start")
            let duration = try reader.uint16("duration")
            let text = try reader.text("text", allowed: 0...CampLimits.text)
            self = .event(Event(title: title, startMinute: start, durationMinutes: duration, text: text))
        case .emergency:
            let raw = try reader.byte("emergency kind")
            guard let emergency = EmergencyKind(rawValue: raw) else { throw .badEnum(field: "emergency kind", value: raw) }
            let text = try reader.text("text", allowed: 1...CampLimits.text)
            self = .emergency(Emergency(emergency: emergency, text: text, position: try reader.position()))
        }
        guard reader.remaining == 0 else { throw .trailingBytes(reader.remaining) }
    }
}

/// Big-endian field writer of the camp codec.
struct CampByteWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func uint16(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    mutating func uint32(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func int32(_ value: Int32) { uint32(UInt32(bitPattern: value)) }

    /// A length byte, then the UTF-8 bytes.
    mutating func text(_ text: String, field: String, allowed: ClosedRange<Int>) throws(CampCodecError) {
        let utf8 = Array(text.utf8)
        guard allowed.contains(utf8.count) else { throw .badLength(field: field, length: utf8.count, allowed: allowed) }
        byte(UInt8(utf8.count))
        bytes += utf8
    }

    mutating func position(_ position: CampPosition?) {
        int32(position?.latitudeE5 ?? CampPosition.absent)
        int32(position?.longitudeE5 ?? CampPosition.absent)
    }
}

/// Bounds-checked big-endian field reader of the camp codec.
struct CampByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func nextByte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func take(_ count: Int, _ field: String) throws(CampCodecError) -> ArraySlice<UInt8> {
        guard count <= remaining else { throw .truncated(field: field) }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    mutating func byte(_ field: String) throws(CampCodecError) -> UInt8 {
        try take(1, field).first!
    }

    mutating func uint16(_ field: String) throws(CampCodecError) -> UInt16 {
        try take(2, field).reduce(0) { $0 << 8 | UInt16($1) }
    }

    mutating func uint32(_ field: String) throws(CampCodecError) -> UInt32 {
        try take(4, field).reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func text(_ field: String, allowed: ClosedRange<Int>) throws(CampCodecError) -> String {
        let length = Int(try byte(field))
        guard allowed.contains(length) else { throw .badLength(field: field, length: length, allowed: allowed) }
        let raw = try take(length, field)
        guard let text = String(validating: raw, as: UTF8.self) else { throw .invalidUTF8(field: field) }
        return text
    }

    mutating func position() throws(CampCodecError) -> CampPosition? {
        let latitude = Int32(bitPattern: try uint32("latitude"))
        let longitude = Int32(bitPattern: try uint32("longitude"))
        if latitude == CampPosition.absent, longitude == CampPosition.absent { return nil }
        guard let position = CampPosition(latitudeE5: latitude, longitudeE5: longitude) else { throw .badPosition }
        return position
    }
}
