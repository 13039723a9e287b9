/// Splits a payload too large for one frame into at most `MeshFrame.maxFragments` chunks.
///
/// Chunk `i` travels in a frame with `fragment = (i, count)` and `packetID = first + i`
/// (consecutive ids, so every frame keeps its own nonce and seen-set entry). Size
/// `maxChunk` with `MeshFrameCodec.maxPlaintext(…, fragmented: true, …)`.
public enum Fragmenter {
    /// The chunks of `payload`, each at most `maxChunk` bytes, all full but the last.
    /// A payload that fits one chunk comes back as that one chunk (send it unfragmented).
    public static func split(payload: [UInt8], maxChunk: Int) throws(MeshWireError) -> [[UInt8]] {
        guard maxChunk >= 1 else { throw .payloadTooLarge(size: payload.count, maxChunk: maxChunk) }
        guard payload.count > maxChunk else { return [payload] }
        let count = (payload.count + maxChunk - 1) / maxChunk
        guard count <= MeshFrame.maxFragments else { throw .payloadTooLarge(size: payload.count, maxChunk: maxChunk) }
        return stride(from: 0, to: payload.count, by: maxChunk).map {
            Array(payload[$0..<min($0 + maxChunk, payload.count)])
        }
    }

    /// The largest payload `split` accepts for this chunk size.
    public static func maxPayload(maxChunk: Int) -> Int { max(0, maxChunk) * MeshFrame.maxFragments }

    /// The headers for the pieces of one payload: `base` (kind, origin, destination, …)
    /// with `packetID = firstPacketID + i` and `fragment = (i, count)`; one unfragmented
    /// header when `count` is 1. `count` must be 1…16.
    public static func headers(base: MeshHeader, firstPacketID: UInt32, count: Int) -> [MeshHeader] {
        precondition((1...MeshFrame.maxFragments).contains(count), "fragment count \(count) out of 1…16")
        return (0..<count).map { index in
            var header = base
            header.packetID = firstPacketID &+ UInt32(index)
            header.fragment = count == 1 ? nil : MeshHeader.Fragment(index: UInt8(index), count: UInt8(count))
            return header
        }
    }
}
