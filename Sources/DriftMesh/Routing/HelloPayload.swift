/// The payload of a `hello` frame: the sender's public key and the neighbours it hears.
///
/// Layout (version 1): `01`, 32 bytes of public key, a neighbour count `n` (≤ `maxNeighbours`),
/// then `n` × (4-byte big-endian node id, 1-byte quality bucket 0…3). At most
/// 1 + 32 + 1 + 5·30 = 184 bytes, so it fits one frame.
///
/// Version 2 leaves the key out (`02`, `n`, the entries) for neighbours that know it already:
/// the key is a fifth of a hello's time on air, and hellos a large part of a quiet mesh's. A box
/// of an older build drops a version-2 hello as unsupported; ``MeshNodeMachine`` leaves the key
/// out only where its neighbours read version 2 (`helloCarriesKey(at:)`).
public struct HelloPayload: Sendable, Hashable {
    /// Bytes of the public key (opaque to the router; the wire helper owns keys).
    public static let publicKeyLength = 32
    /// Most neighbours listed; the best links win when a box hears more.
    public static let maxNeighbours = 30
    static let version: UInt8 = 1
    static let keylessVersion: UInt8 = 2

    /// The sender's key; `nil` in a version-2 hello.
    public var publicKey: [UInt8]?
    public var neighbours: [Entry]

    /// One neighbour as listed in a hello.
    public struct Entry: Sendable, Hashable {
        public var id: NodeID
        /// `LinkBucket` of the sender's link from this neighbour (0…3).
        public var bucket: UInt8

        public init(id: NodeID, bucket: UInt8) {
            self.id = id
            self.bucket = bucket
        }
    }

    /// Keeps at most `maxNeighbours` entries (the caller orders them best first).
    public init(publicKey: [UInt8]?, neighbours: [Entry]) {
        self.publicKey = publicKey
        self.neighbours = Array(neighbours.prefix(Self.maxNeighbours))
    }

    /// Why bytes are not a hello payload.
    public enum DecodingError: Error, Equatable, Sendable {
        case empty
        case unsupportedVersion(UInt8)
        case truncated(expected: Int, actual: Int)
        case tooManyNeighbours(Int)
        case badBucket(UInt8)
        case trailingBytes(Int)
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(2 + Self.publicKeyLength + 5 * neighbours.count)
        if let publicKey {
            precondition(publicKey.count == Self.publicKeyLength, "a hello carries a 32-byte public key")
            out.append(Self.version)
            out += publicKey
        } else {
            out.append(Self.keylessVersion)
        }
        out.append(UInt8(neighbours.count))
        for entry in neighbours {
            let raw = entry.id.rawValue
            out += [UInt8(raw >> 24), UInt8(truncatingIfNeeded: raw >> 16), UInt8(truncatingIfNeeded: raw >> 8), UInt8(truncatingIfNeeded: raw)]
            out.append(min(entry.bucket, 3))
        }
        return out
    }

    public init(decoding bytes: some Collection<UInt8>) throws(DecodingError) {
        let b = Array(bytes)
        guard let first = b.first else { throw .empty }
        guard first == Self.version || first == Self.keylessVersion else { throw .unsupportedVersion(first) }
        let keyLength = first == Self.version ? Self.publicKeyLength : 0
        let header = 2 + keyLength
        guard b.count >= header else { throw .truncated(expected: header, actual: b.count) }
        let count = Int(b[1 + keyLength])
        guard count <= Self.maxNeighbours else { throw .tooManyNeighbours(count) }
        let total = header + 5 * count
        guard b.count >= total else { throw .truncated(expected: total, actual: b.count) }
        guard b.count == total else { throw .trailingBytes(b.count - total) }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for i in 0..<count {
            let o = header + 5 * i
            let raw = UInt32(b[o]) << 24 | UInt32(b[o + 1]) << 16 | UInt32(b[o + 2]) << 8 | UInt32(b[o + 3])
            let bucket = b[o + 4]
            guard bucket <= 3 else { throw .badBucket(bucket) }
            entries.append(Entry(id: NodeID(raw), bucket: bucket))
        }
        publicKey = keyLength == 0 ? nil : Array(b[1..<(1 + keyLength)])
        neighbours = entries
    }
}
