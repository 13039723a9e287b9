import DriftMesh
import Logging

/// What the node's trace lines say of a frame: its header, read without opening the frame.
///
/// At `daemon.log_level = "trace"` the node logs one line per frame it hears and sends and per
/// message it stores, delivers or has confirmed (``MeshNode``), so a slow bottle's path can be
/// read from the boxes' logs side by side: which piece went out when, which box heard it, which
/// was sent again. Below `trace` nothing is decoded.
enum MeshFrameTrace {
    /// The header's fields as log metadata (`kind`, `message` origin#id of its first piece, `to`, `hops` taken/start,
    /// `piece` index/count, `relayer`, `bytes`), or `malformed` when the header does not parse.
    static func metadata(of bytes: [UInt8]) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["bytes": "\(bytes.count)"]
        guard let wire = try? MeshFrameCodec.decodeHeader(bytes) else {
            metadata["malformed"] = "true"
            return metadata
        }
        let header = wire.header
        metadata["kind"] = "\(header.kind)"  // the case's name
        metadata["message"] = "\(header.messageKey)"
        metadata["hops"] = "\(header.hopsTaken)/\(header.hopStart)"
        metadata["relayer"] = "\(String(header.relayer, radix: 16))"
        if let destination = header.destination { metadata["to"] = "\(destination)" }
        if let fragment = header.fragment { metadata["piece"] = "\(fragment.index + 1)/\(fragment.count)" }
        if header.wantsAck { metadata["wants_ack"] = "true" }
        return metadata
    }
}
