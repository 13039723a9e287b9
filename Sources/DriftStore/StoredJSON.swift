import Foundation

/// The JSON form of the few structured values kept in text columns (placement,
/// conditions, media references, survival state, events).
///
/// Keys sorted so equal values give equal text. Dates use Foundation's default
/// (seconds since 2001 as a JSON number), which round-trips a `Date` exactly.
enum StoredJSON {
    static func encode<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        return String(decoding: data, as: UTF8.self)
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from text: String, column: String, row: String) throws -> Value {
        let decoder = JSONDecoder()
        do {
            return try decoder.decode(type, from: Data(text.utf8))
        } catch {
            throw BottleStoreError.corruptRow(column: column, row: row, problem: "\(error)")
        }
    }
}
