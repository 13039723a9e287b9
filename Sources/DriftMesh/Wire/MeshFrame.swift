/// Size limits of one mesh frame on the air.
///
/// A frame is at most 233 bytes in total (header, ciphertext, AEAD tag and the optional
/// origin tag), so it rides raw in one E22 sub-packet (240 B) or inside one Meshtastic
/// `PRIVATE_APP` packet. `MeshFrameCodec.maxPlaintext(…)` says how much payload fits.
public enum MeshFrame {
    /// The largest frame, every byte included.
    public static let maxBytes = 233
    /// Most pieces one payload may be split into (`Fragmenter`).
    public static let maxFragments = 16
}
