// libFuzzer entry point for DriftMesh's crypto-free wire code: header decoding, frame
// parsing, the relay rewrite, fragment splitting and reassembly, and the compact digest's codec.
// Built outside SwiftPM by Fuzz/MeshFuzz/run.sh with `swiftc -sanitize=fuzzer,address`.

nonisolated(unsafe) var reassembler = Reassembler(limits: .init(maxPartials: 8, maxBytes: 4096))
nonisolated(unsafe) var clock = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMesh(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    clock += 1
    if let wire = try? MeshFrameCodec.decodeHeader(bytes) {
        precondition(wire.length <= bytes.count, "header longer than the input")
        // What decodes re-encodes to the same header bytes.
        let again = try? MeshFrameCodec.encodeHeader(wire.header, networkHint: wire.networkHint, originTagged: wire.originTagged)
        precondition(again == Array(bytes.prefix(wire.length)), "decode → encode is not the identity")
        let outcome = reassembler.accept(header: wire.header, chunk: Array(bytes[wire.length...]), now: .seconds(clock))
        if case .complete(let message) = outcome {
            precondition(message.header.fragment == nil, "reassembled message still marked as a fragment")
        }
        precondition(reassembler.bufferedBytes <= 4096 && reassembler.partialCount <= 8, "reassembler over its bounds")
    }
    if let parsed = try? MeshFrameCodec.parse(bytes) {
        precondition(parsed.ciphertext.lowerBound == parsed.wire.length && parsed.sealedEnd <= bytes.count, "bad ranges")
        if let relayed = try? MeshFrameCodec.relay(bytes, by: NodeID(0xAB)) {
            precondition(relayed.count == bytes.count, "relay changed the length")
            let header = try? MeshFrameCodec.decodeHeader(relayed).header
            precondition(header?.hopsTaken == parsed.header.hopsTaken + 1 && header?.relayer == 0xAB, "relay rewrite")
            precondition(
                MeshFrameCodec.authenticatedHeader(relayed.prefix(parsed.wire.length))
                    == MeshFrameCodec.authenticatedHeader(bytes.prefix(parsed.wire.length)),
                "relay touched an authenticated byte")
        }
    }
    if let digest = try? CompactDigest(decoding: bytes) {
        // Both codings are canonical: what decodes re-encodes to the same bytes.
        precondition(digest.encoded() == bytes, "compact digest decode → encode is not the identity")
        precondition(digest.hashes.allSatisfy { $0 < digest.hashSpace }, "a compact digest hash outside its space")
    }
    if let first = bytes.first {
        let maxChunk = Int(first % 64)
        if let chunks = try? Fragmenter.split(payload: Array(bytes.dropFirst()), maxChunk: maxChunk) {
            precondition(chunks.count <= MeshFrame.maxFragments && chunks.flatMap { $0 } == Array(bytes.dropFirst()), "split")
        }
    }
    return 0
}
