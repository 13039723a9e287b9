extension MeshSealer {
    /// Seals a payload of any size up to 16 frames: one unfragmented frame when it fits,
    /// else fragments with packet ids `base.packetID, base.packetID + 1, …`.
    ///
    /// The origin consumes `result.count` packet ids. With `originKey`, every frame carries
    /// an origin tag. Throws `payloadTooLarge` beyond 16 fragments.
    public func sealPayload(
        _ payload: [UInt8], base: MeshHeader, originKey: OriginKey? = nil
    ) throws(MeshWireError) -> [[UInt8]] {
        var whole = base
        whole.fragment = nil
        let tagged = originKey != nil
        let chunks: [[UInt8]]
        if payload.count <= MeshFrameCodec.maxPlaintext(for: whole, originTagged: tagged) {
            chunks = [payload]
        } else {
            let maxChunk = MeshFrameCodec.maxPlaintext(
                hasDestination: base.destination != nil, fragmented: true, originTagged: tagged)
            chunks = try Fragmenter.split(payload: payload, maxChunk: maxChunk)
        }
        let headers = Fragmenter.headers(base: whole, firstPacketID: base.packetID, count: chunks.count)
        var frames: [[UInt8]] = []
        for (header, chunk) in zip(headers, chunks) {
            if let originKey {
                frames.append(try seal(header: header, plaintext: chunk, originKey: originKey))
            } else {
                frames.append(try seal(header: header, plaintext: chunk))
            }
        }
        return frames
    }
}
