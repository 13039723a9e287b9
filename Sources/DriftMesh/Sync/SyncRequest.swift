/// "Send me these packets": the keys a box lacks after reading a neighbour's digest.
///
/// Layout (version 1): `01`, count `n` (≤ `maxKeys`), `n` × (origin u32 BE, packet id u32 BE):
/// at most 2 + 8·23 = 186 bytes.
public struct SyncRequest: Sendable, Hashable {
    public static let maxKeys = 23
    public var keys: [PacketKey]

    public init(keys: [PacketKey]) {
        self.keys = Array(keys.prefix(Self.maxKeys))
    }

    public enum DecodingError: Error, Equatable, Sendable {
        case truncated(expected: Int, actual: Int)
        case unsupportedVersion(UInt8)
        case tooManyKeys(Int)
        case trailingBytes(Int)
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = [1, UInt8(keys.count)]
        for key in keys { out += be32(key.origin.rawValue) + be32(key.packetID) }
        return out
    }

    public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
        let b = Array(bytes)
        guard b.count >= 2 else { throw .truncated(expected: 2, actual: b.count) }
        guard b[0] == 1 else { throw .unsupportedVersion(b[0]) }
        let n = Int(b[1])
        guard n <= Self.maxKeys else { throw .tooManyKeys(n) }
        let total = 2 + 8 * n
        guard b.count >= total else { throw .truncated(expected: total, actual: b.count) }
        guard b.count == total else { throw .trailingBytes(b.count - total) }
        keys = (0..<n).map { PacketKey(origin: NodeID(readBE32(b, 2 + 8 * $0)), packetID: readBE32(b, 6 + 8 * $0)) }
    }
}
