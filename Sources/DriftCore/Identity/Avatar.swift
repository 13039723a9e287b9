/// A generated face for a participant: a 5×5 left-right symmetric identicon and a hue.
///
/// Derived only from the ``ParticipantID``, so it is stable within a bottle and as
/// unlinkable across bottles as the id. Clients draw filled cells in
/// `hsl(hue, 65%, 45%)` (see ``cssColor``) on a light background.
public struct Avatar: Hashable, Sendable, Codable {
    /// Grid size in cells (5).
    public static let size = 5
    /// 25 bits, row-major from the top-left cell (bit 0) to bottom-right (bit 24); 1 = filled.
    public let pattern: UInt32
    /// Colour hue in degrees, 0..<360.
    public let hue: Int

    /// The avatar of `participant`.
    public init(participant: ParticipantID) {
        let b = participant.bytes
        // 15 bits choose the left three columns; columns 3 and 4 mirror 1 and 0.
        var bits = (UInt32(b[0]) | UInt32(b[1]) << 8) & 0x7FFF
        if bits.nonzeroBitCount < 3 { bits |= 0b010_101_010_101_010 } // never an empty face
        var pattern: UInt32 = 0
        for row in 0..<5 {
            for column in 0..<3 {
                guard bits & (1 << UInt32(row * 3 + column)) != 0 else { continue }
                pattern |= 1 << UInt32(row * 5 + column)
                pattern |= 1 << UInt32(row * 5 + (4 - column))
            }
        }
        self.pattern = pattern
        hue = Int((UInt32(b[2]) << 8 | UInt32(b[3])) % 360)
    }

    /// Whether the cell at `row`, `column` (0–4 each) is filled.
    public func isFilled(row: Int, column: Int) -> Bool {
        precondition((0..<5).contains(row) && (0..<5).contains(column), "avatar cell out of range")
        return pattern & (1 << UInt32(row * 5 + column)) != 0
    }

    /// The CSS colour, e.g. `hsl(212, 65%, 45%)`.
    public var cssColor: String { "hsl(\(hue), 65%, 45%)" }
}
