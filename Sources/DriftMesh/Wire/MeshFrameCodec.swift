/// The byte layout of a mesh frame (version 1), without any cryptography.
///
/// ```
///  0      version (high nibble, 1) | kind (low nibble)
///  1      network hint (1 byte derived from the network key)
///  2      flags: 0x80 destination · 0x40 wants ack · 0x20 fragmented · 0x10 origin tag
///  3      hopStart (high nibble, 0–7) | hopsTaken (low nibble)   ← hopsTaken not authenticated
///  4      relayer short id                                        ← not authenticated
///  5–8    origin node id, big-endian
///  9–12   packet id, big-endian
///  13–15  expiry: minutes since 2025-01-01 00:00 UTC, 24 bits big-endian
///  +4     destination node id          (only with the destination flag)
///  +1     fragment index<<4 | count−1  (only with the fragmented flag)
///  …      ciphertext (as long as the plaintext)
///  16     ChaCha20-Poly1305 tag
///  8      origin tag, truncated HMAC-SHA256 (only with the origin-tag flag)
/// ```
///
/// This file parses and rewrites frames; `MeshSealer` encrypts and authenticates them.
/// It deliberately does not import Crypto, so the fuzz target can build it alone.
public enum MeshFrameCodec {
    /// The wire version this build writes and the only one it reads.
    public static let version: UInt8 = 1
    /// Header bytes every frame has.
    public static let fixedHeaderBytes = 16
    /// The AEAD (Poly1305) tag.
    public static let tagBytes = 16
    /// The truncated HMAC origin tag of origin-authenticated frames.
    public static let originTagBytes = 8
    /// Minute 0 of the expiry field: 2025-01-01 00:00 UTC, in minutes since 1970.
    public static let expiryEpochMinute: UInt32 = 28_928_160
    /// The last minute the 24-bit expiry can express (2056-11).
    public static let latestExpiryMinute: UInt32 = expiryEpochMinute + 0xFF_FFFF

    static let flagDestination: UInt8 = 0x80
    static let flagWantsAck: UInt8 = 0x40
    static let flagFragmented: UInt8 = 0x20
    static let flagOriginTag: UInt8 = 0x10
    static let hopsOffset = 3
    static let relayerOffset = 4

    /// Header bytes for a header shape.
    public static func headerBytes(hasDestination: Bool, fragmented: Bool) -> Int {
        fixedHeaderBytes + (hasDestination ? 4 : 0) + (fragmented ? 1 : 0)
    }

    /// Everything but the plaintext: header, AEAD tag, and the origin tag if present.
    public static func overheadBytes(hasDestination: Bool, fragmented: Bool, originTagged: Bool) -> Int {
        headerBytes(hasDestination: hasDestination, fragmented: fragmented) + tagBytes
            + (originTagged ? originTagBytes : 0)
    }

    /// The largest plaintext one frame of this shape carries (201 B for a plain broadcast).
    public static func maxPlaintext(hasDestination: Bool, fragmented: Bool, originTagged: Bool) -> Int {
        MeshFrame.maxBytes
            - overheadBytes(hasDestination: hasDestination, fragmented: fragmented, originTagged: originTagged)
    }

    /// The largest plaintext for `header` (its destination and fragment decide the shape).
    public static func maxPlaintext(for header: MeshHeader, originTagged: Bool = false) -> Int {
        maxPlaintext(
            hasDestination: header.destination != nil, fragmented: header.fragment != nil,
            originTagged: originTagged)
    }

    /// Writes the header bytes (hopsTaken and relayer as given).
    public static func encodeHeader(
        _ header: MeshHeader, networkHint: UInt8, originTagged: Bool
    ) throws(MeshWireError) -> [UInt8] {
        guard header.hopStart <= 7, header.hopsTaken <= header.hopStart else {
            throw .badHops(hopStart: header.hopStart, hopsTaken: header.hopsTaken)
        }
        guard header.expiresAtMinute >= expiryEpochMinute, header.expiresAtMinute <= latestExpiryMinute else {
            throw .expiryOutOfRange(minute: header.expiresAtMinute)
        }
        if let fragment = header.fragment {
            guard fragment.count >= 2, Int(fragment.count) <= MeshFrame.maxFragments,
                fragment.index < fragment.count
            else { throw .badFragment(index: fragment.index, count: fragment.count) }
        }
        var flags: UInt8 = 0
        if header.destination != nil { flags |= flagDestination }
        if header.wantsAck { flags |= flagWantsAck }
        if header.fragment != nil { flags |= flagFragmented }
        if originTagged { flags |= flagOriginTag }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerBytes(hasDestination: header.destination != nil, fragmented: header.fragment != nil))
        bytes.append(version << 4 | header.kind.rawValue)
        bytes.append(networkHint)
        bytes.append(flags)
        bytes.append(header.hopStart << 4 | header.hopsTaken)
        bytes.append(header.relayer)
        appendBigEndian(header.origin.rawValue, to: &bytes)
        appendBigEndian(header.packetID, to: &bytes)
        let expiry = header.expiresAtMinute - expiryEpochMinute
        bytes.append(UInt8(truncatingIfNeeded: expiry >> 16))
        bytes.append(UInt8(truncatingIfNeeded: expiry >> 8))
        bytes.append(UInt8(truncatingIfNeeded: expiry))
        if let destination = header.destination { appendBigEndian(destination.rawValue, to: &bytes) }
        if let fragment = header.fragment { bytes.append(fragment.index << 4 | (fragment.count - 1)) }
        return bytes
    }

    /// Reads and validates the header at the start of `frame` (the rest is not checked).
    public static func decodeHeader(_ frame: [UInt8]) throws(MeshWireError) -> WireHeader {
        guard frame.count <= MeshFrame.maxBytes else { throw .oversize(length: frame.count) }
        guard let first = frame.first else { throw .truncated(length: 0, needed: fixedHeaderBytes) }
        guard first >> 4 == version else { throw .badVersion(first >> 4) }
        guard let kind = FrameKind(rawValue: first & 0x0F) else { throw .badKind(first & 0x0F) }
        guard frame.count >= fixedHeaderBytes else {
            throw .truncated(length: frame.count, needed: fixedHeaderBytes)
        }
        let flags = frame[2]
        guard flags & 0x0F == 0 else { throw .badFlags(flags) }
        let hasDestination = flags & flagDestination != 0
        let fragmented = flags & flagFragmented != 0
        let length = headerBytes(hasDestination: hasDestination, fragmented: fragmented)
        guard frame.count >= length else { throw .truncated(length: frame.count, needed: length) }

        let hopStart = frame[hopsOffset] >> 4
        let hopsTaken = frame[hopsOffset] & 0x0F
        guard hopStart <= 7, hopsTaken <= hopStart else { throw .badHops(hopStart: hopStart, hopsTaken: hopsTaken) }
        let expiry = UInt32(frame[13]) << 16 | UInt32(frame[14]) << 8 | UInt32(frame[15])
        var offset = fixedHeaderBytes
        var destination: NodeID?
        if hasDestination {
            destination = NodeID(readBigEndian(frame, at: offset))
            offset += 4
        }
        var fragment: MeshHeader.Fragment?
        if fragmented {
            let index = frame[offset] >> 4
            let count = (frame[offset] & 0x0F) + 1
            guard count >= 2, index < count else { throw .badFragment(index: index, count: count) }
            fragment = MeshHeader.Fragment(index: index, count: count)
        }
        let header = MeshHeader(
            kind: kind, origin: NodeID(readBigEndian(frame, at: 5)), packetID: readBigEndian(frame, at: 9),
            destination: destination, hopStart: hopStart, hopsTaken: hopsTaken,
            wantsAck: flags & flagWantsAck != 0, relayer: frame[relayerOffset], fragment: fragment,
            expiresAtMinute: expiryEpochMinute + expiry)
        return WireHeader(
            header: header, networkHint: frame[1], originTagged: flags & flagOriginTag != 0, length: length)
    }

    /// Splits a whole frame into header, ciphertext, AEAD tag and origin tag, checking sizes.
    public static func parse(_ frame: [UInt8]) throws(MeshWireError) -> ParsedFrame {
        let wire = try decodeHeader(frame)
        let needed = wire.length + tagBytes + (wire.originTagged ? originTagBytes : 0)
        guard frame.count >= needed else { throw .truncated(length: frame.count, needed: needed) }
        let originTag = wire.originTagged ? (frame.count - originTagBytes)..<frame.count : nil
        let tagEnd = originTag?.lowerBound ?? frame.count
        return ParsedFrame(
            wire: wire, ciphertext: wire.length..<(tagEnd - tagBytes), tag: (tagEnd - tagBytes)..<tagEnd,
            originTag: originTag)
    }

    /// The header bytes as authenticated: hopsTaken and relayer zeroed.
    public static func authenticatedHeader(_ headerBytes: some Collection<UInt8>) -> [UInt8] {
        var bytes = Array(headerBytes)
        if bytes.count > relayerOffset {
            bytes[hopsOffset] &= 0xF0
            bytes[relayerOffset] = 0
        }
        return bytes
    }

    /// The frame a relay transmits: the same sealed bytes with one more hop taken and
    /// `relay`'s short id as relayer. Needs no key; the tags stay valid.
    public static func relay(_ frame: [UInt8], by relay: NodeID) throws(MeshWireError) -> [UInt8] {
        let parsed = try parse(frame)
        let header = parsed.wire.header
        guard header.hopsTaken < header.hopStart else { throw .hopLimitReached }
        var copy = frame
        copy[hopsOffset] = header.hopStart << 4 | (header.hopsTaken + 1)
        copy[relayerOffset] = relay.shortID
        return copy
    }

    /// `frame` sent again by `relay` with `hopsTaken` hops taken (at most the frame's hop limit): a
    /// topology advert a neighbour asked for, which the router numbers as its relay.
    public static func resent(_ frame: [UInt8], hopsTaken: UInt8, by relay: NodeID) throws(MeshWireError) -> [UInt8] {
        let header = try parse(frame).wire.header
        var copy = frame
        copy[hopsOffset] = header.hopStart << 4 | min(hopsTaken, header.hopStart)
        copy[relayerOffset] = relay.shortID
        return copy
    }

    static func appendBigEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        bytes.append(UInt8(truncatingIfNeeded: value >> 16))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
        bytes.append(UInt8(truncatingIfNeeded: value))
    }

    static func readBigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}

/// A decoded frame header plus what only the wire knows.
public struct WireHeader: Hashable, Sendable {
    public var header: MeshHeader
    /// The sender's network hint (must match ours before we try to open).
    public var networkHint: UInt8
    /// The frame ends with an 8-byte origin tag (`MeshSealer.verifyOrigin`).
    public var originTagged: Bool
    /// Header bytes in the frame.
    public var length: Int
}

/// Where the parts of a frame lie, as index ranges into the frame.
public struct ParsedFrame: Hashable, Sendable {
    public var wire: WireHeader
    public var ciphertext: Range<Int>
    public var tag: Range<Int>
    public var originTag: Range<Int>?

    public var header: MeshHeader { wire.header }
    /// Everything the origin tag covers: header through AEAD tag.
    public var sealedEnd: Int { tag.upperBound }
}
