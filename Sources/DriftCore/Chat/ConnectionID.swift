/// One live connection of a visitor (a WebSocket), numbered by the API.
public struct ConnectionID: Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "conn#\(rawValue)" }
}
