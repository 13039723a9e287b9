import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Seals and opens mesh frames with the network key (ChaCha20-Poly1305).
///
/// Subkeys come from HKDF-SHA256 over the 32-byte network key: the AEAD key and a
/// 1-byte network hint that lets a box drop another mesh's frames before any crypto.
/// The 12-byte nonce is `"DM" · version · 0 · origin · packetID` and is never sent:
/// an origin never reuses a packet id, so a nonce is never reused under one key.
/// The associated data is the header with hopsTaken and relayer zeroed, so relays
/// forward the same sealed bytes (`MeshFrameCodec.relay`). See docs/wire-format.md.
public struct MeshSealer: Sendable {
    /// The hint written into, and expected in, every frame of this mesh.
    public let networkHint: UInt8
    let aeadKey: SymmetricKey
    /// SHA-256 of the network key: the salt of pairwise origin keys.
    let originSalt: [UInt8]

    static let kdfSalt = Array("drift-mesh-v1".utf8)

    /// Derives the subkeys of `networkKey` (exactly 32 bytes).
    public init(networkKey: [UInt8]) throws(MeshWireError) {
        guard networkKey.count == 32 else { throw .badKey("network key must be 32 bytes, got \(networkKey.count)") }
        let master = SymmetricKey(data: networkKey)
        aeadKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: master, salt: Self.kdfSalt, info: Array("aead".utf8), outputByteCount: 32)
        let hint = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: master, salt: Self.kdfSalt, info: Array("hint".utf8), outputByteCount: 1)
        networkHint = hint.withUnsafeBytes { $0[0] }
        originSalt = Array(SHA256.hash(data: networkKey))
    }

    /// Encrypts `plaintext` under `header` into one frame (at most `MeshFrame.maxBytes`).
    public func seal(header: MeshHeader, plaintext: [UInt8]) throws(MeshWireError) -> [UInt8] {
        try seal(header: header, plaintext: plaintext, originTagged: false)
    }

    /// Like `seal(header:plaintext:)`, then appends an 8-byte origin tag made with the
    /// pairwise key shared with the destination (`originKey(mine:peerPublicKey:)`).
    public func seal(header: MeshHeader, plaintext: [UInt8], originKey: OriginKey) throws(MeshWireError) -> [UInt8] {
        var frame = try seal(header: header, plaintext: plaintext, originTagged: true)
        frame.append(contentsOf: originKey.tag(over: frame))
        return frame
    }

    private func seal(header: MeshHeader, plaintext: [UInt8], originTagged: Bool) throws(MeshWireError) -> [UInt8] {
        let limit = MeshFrameCodec.maxPlaintext(for: header, originTagged: originTagged)
        guard plaintext.count <= limit else { throw .plaintextTooLarge(size: plaintext.count, max: limit) }
        var frame = try MeshFrameCodec.encodeHeader(header, networkHint: networkHint, originTagged: originTagged)
        let ad = MeshFrameCodec.authenticatedHeader(frame)
        do {
            let box = try ChaChaPoly.seal(
                plaintext, using: aeadKey, nonce: Self.nonce(origin: header.origin, packetID: header.packetID),
                authenticating: ad)
            frame.append(contentsOf: box.ciphertext)
            frame.append(contentsOf: box.tag)
        } catch {
            throw .authenticationFailed  // unreachable with a valid key and nonce
        }
        return frame
    }

    /// Checks and decrypts a frame. Forged, altered (any authenticated bit), truncated,
    /// oversized and foreign frames throw; the origin tag, if any, is not checked here
    /// (`verifyOrigin`).
    public func open(_ frame: [UInt8]) throws(MeshWireError) -> (header: MeshHeader, plaintext: [UInt8]) {
        let parsed = try MeshFrameCodec.parse(frame)
        guard parsed.wire.networkHint == networkHint else { throw .wrongNetwork(hint: parsed.wire.networkHint) }
        let header = parsed.header
        let ad = MeshFrameCodec.authenticatedHeader(frame[0..<parsed.wire.length])
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: Self.nonce(origin: header.origin, packetID: header.packetID),
                ciphertext: Array(frame[parsed.ciphertext]), tag: Array(frame[parsed.tag]))
            let plaintext = try ChaChaPoly.open(box, using: aeadKey, authenticating: ad)
            return (header, Array(plaintext))
        } catch {
            throw .authenticationFailed
        }
    }

    /// The nonce of a packet: never transmitted, unique per (origin, packet id).
    static func nonce(origin: NodeID, packetID: UInt32) -> ChaChaPoly.Nonce {
        var bytes: [UInt8] = [0x44, 0x4D, MeshFrameCodec.version, 0]
        MeshFrameCodec.appendBigEndian(origin.rawValue, to: &bytes)
        MeshFrameCodec.appendBigEndian(packetID, to: &bytes)
        // 12 bytes is ChaChaPoly's nonce size, so this cannot fail.
        return try! ChaChaPoly.Nonce(data: bytes)
    }
}
