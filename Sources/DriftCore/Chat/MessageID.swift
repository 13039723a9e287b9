import Foundation

/// The identity of one chat line; time-ordered (UUIDv7) so ties on timestamp still sort stably.
public struct MessageID: UUIDIdentifier {
    public let uuid: UUID

    public init(uuid: UUID) { self.uuid = uuid }

    /// A fresh time-ordered identifier for a line received at `now`.
    public static func make(at now: Date, using generator: inout some RandomNumberGenerator) -> MessageID {
        MessageID(uuid: UUIDv7.make(at: now, using: &generator))
    }

    /// A fresh identifier from the system's secure random source.
    public static func make(at now: Date) -> MessageID {
        var generator = SystemRandomNumberGenerator()
        return make(at: now, using: &generator)
    }
}
