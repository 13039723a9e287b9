import Foundation

/// A button press bound to one visitor and one bottle.
public struct PresenceProof: Sendable, Equatable, Codable {
    public var visitor: TokenHash
    public var bottle: BottleID
    public var requestedAt: Date
    public var pressedAt: Date
}
