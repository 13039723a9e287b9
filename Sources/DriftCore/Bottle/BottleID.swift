import Foundation

/// The stable identity of one bottle, on this box and across the mesh.
public struct BottleID: UUIDIdentifier {
    public let uuid: UUID

    public init(uuid: UUID) { self.uuid = uuid }

    /// A fresh time-ordered identifier for a bottle created at `now`.
    public static func make(at now: Date, using generator: inout some RandomNumberGenerator) -> BottleID {
        BottleID(uuid: UUIDv7.make(at: now, using: &generator))
    }

    /// A fresh identifier from the system's secure random source.
    public static func make(at now: Date) -> BottleID {
        var generator = SystemRandomNumberGenerator()
        return make(at: now, using: &generator)
    }
}
