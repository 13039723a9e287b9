/// "Send me these boxes' topology adverts": the lists a box lacks (advert repair,
/// ``MeshRouterConfiguration/topologyRepair``). It travels in a one-hop `request` frame, as a
/// ``SyncRequest`` does, told apart by its version byte (a box that reads only version 1 counts
/// it as a bad request and drops it).
///
/// Layout (version 2): `02`, count `n` (1…`maxBoxes`), `n` × node id (u32 BE): at most
/// 2 + 4·40 = 162 bytes.
public struct TopologyRequest: Sendable, Hashable {
    public static let version: UInt8 = 2
    public static let maxBoxes = 40
    public var boxes: [NodeID]

    public init(boxes: [NodeID]) {
        self.boxes = Array(boxes.prefix(Self.maxBoxes))
    }

    public enum DecodingError: Error, Equatable, Sendable {
        case truncated(expected: Int, actual: Int)
        case unsupportedVersion(UInt8)
        case badCount(Int)
        case trailingBytes(Int)
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.version, UInt8(boxes.count)]
        for box in boxes { out += be32(box.rawValue) }
        return out
    }

    public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
        let b = Array(bytes)
        guard b.count >= 2 else { throw .truncated(expected: 2, actual: b.count) }
        guard b[0] == Self.version else { throw .unsupportedVersion(b[0]) }
        let n = Int(b[1])
        guard n >= 1, n <= Self.maxBoxes else { throw .badCount(n) }
        let total = 2 + 4 * n
        guard b.count >= total else { throw .truncated(expected: total, actual: b.count) }
        guard b.count == total else { throw .trailingBytes(b.count - total) }
        boxes = (0..<n).map { NodeID(readBE32(b, 2 + 4 * $0)) }
    }
}
