import Foundation

/// How a bottle came to the box that hosts it (ARCHITECTURE §4).
public enum Placement: Sendable, Equatable, Codable {
    /// Dropped by a visitor at this box; it sits at the box's own position.
    case nearby
    /// Sent by its creator to a chosen box of the mesh.
    case manual(target: BoxID)
    /// Handed to a random box of the mesh.
    case drift
}
