import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The pairwise key two boxes share for origin authentication of directed frames:
/// X25519(mine, theirs) → HKDF-SHA256 (salt = SHA-256 of the network key,
/// info `drift-mesh-origin`) → 32 bytes. Cache it per peer; it never changes.
public struct OriginKey: Sendable {
    let key: SymmetricKey

    init(key: SymmetricKey) { self.key = key }

    /// HMAC-SHA256 over `sealed` (header as authenticated, ciphertext, AEAD tag),
    /// truncated to `MeshFrameCodec.originTagBytes`.
    func tag(over sealed: [UInt8]) -> [UInt8] {
        let headerLength = (try? MeshFrameCodec.decodeHeader(sealed).length) ?? 0
        var message = MeshFrameCodec.authenticatedHeader(sealed[0..<headerLength])
        message.append(contentsOf: sealed[headerLength...])
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: key)
        return Array(Array(mac).prefix(MeshFrameCodec.originTagBytes))
    }
}

/// What `MeshSealer.verifyOrigin` found out about a frame's origin.
public enum OriginVerdict: Hashable, Sendable {
    /// The tag proves the frame came from its origin (to us).
    case verified
    /// We hold no key for the origin yet (no hello heard): cannot tell.
    case unknownOrigin
    /// The tag is wrong: not made by the origin, or altered.
    case forged
    /// The frame carries no origin tag.
    case untagged
    /// The frame is not addressed to us, so our pairwise key cannot check it.
    case notForMe
}

extension MeshSealer {
    /// The pairwise origin key between this box and a peer (same on both sides).
    public func originKey(mine: BoxKeyPair, peerPublicKey: [UInt8]) throws(MeshWireError) -> OriginKey {
        let secret = try mine.sharedSecret(with: peerPublicKey)
        return OriginKey(
            key: secret.hkdfDerivedSymmetricKey(
                using: SHA256.self, salt: originSalt, sharedInfo: Array("drift-mesh-origin".utf8),
                outputByteCount: 32))
    }

    /// Checks the origin tag of `frame` (which should already have opened) as its
    /// destination `me`, with the origin's key from `keyring`.
    public func verifyOrigin(_ frame: [UInt8], me: BoxKeyPair, keyring: PeerKeyring) -> OriginVerdict {
        guard let parsed = try? MeshFrameCodec.parse(frame), let tagRange = parsed.originTag else {
            return .untagged
        }
        guard parsed.header.destination == me.nodeID else { return .notForMe }
        guard let peerKey = keyring.publicKey(for: parsed.header.origin) else { return .unknownOrigin }
        guard let key = try? originKey(mine: me, peerPublicKey: peerKey) else { return .forged }
        let expected = key.tag(over: Array(frame[0..<parsed.sealedEnd]))
        // Constant-time comparison.
        var difference: UInt8 = 0
        for (a, b) in zip(expected, frame[tagRange]) { difference |= a ^ b }
        return difference == 0 ? .verified : .forged
    }
}
