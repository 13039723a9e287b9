import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A secret sealed to one box: only the holder of the box's X25519 private key can open it,
/// not the relays that carry it (they hold the network key only).
///
/// Layout: the sender's ephemeral public key (32 bytes), then ChaCha20-Poly1305's combined
/// nonce (12), ciphertext and tag (16). The key is HKDF-SHA256 of the X25519 shared secret,
/// salted with both public keys; `context` (for example the bottle and the participant a
/// password is given for) is authenticated, so a sealed secret cannot be replayed for
/// anything else.
public enum SealedToBox {
    /// Bytes a sealed secret adds to its plaintext.
    public static let overhead = 32 + 12 + 16
    static let info = Array("driftbox sealed-to-box v1".utf8)

    /// Seals `plaintext` to the box whose public key is `recipientPublicKey`.
    /// - Throws: ``MeshWireError/badKey(_:)`` for a key that is not a valid X25519 public key.
    public static func seal(_ plaintext: [UInt8], to recipientPublicKey: [UInt8], context: [UInt8]) throws(MeshWireError) -> [UInt8] {
        guard recipientPublicKey.count == 32,
              let recipient = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: recipientPublicKey) else {
            throw .badKey("recipient public key must be a valid 32-byte X25519 key")
        }
        let ephemeral = Curve25519.KeyAgreement.PrivateKey()
        let ephemeralPublic = Array(ephemeral.publicKey.rawRepresentation)
        guard let shared = try? ephemeral.sharedSecretFromKeyAgreement(with: recipient),
              let box = try? ChaChaPoly.seal(plaintext, using: key(shared, ephemeralPublic, recipientPublicKey), authenticating: context)
        else { throw .badKey("cannot agree on a key with the recipient") }
        return ephemeralPublic + Array(box.combined)
    }

    static func key(_ shared: SharedSecret, _ ephemeralPublic: [UInt8], _ recipientPublic: [UInt8]) -> SymmetricKey {
        shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: ephemeralPublic + recipientPublic, sharedInfo: info, outputByteCount: 32)
    }
}

extension BoxKeyPair {
    /// Opens a secret sealed to this box with ``SealedToBox/seal(_:to:context:)`` for `context`;
    /// `nil` when it was sealed to another box, for another context, or altered on the way.
    public func openSealed(_ sealed: [UInt8], context: [UInt8]) -> [UInt8]? {
        guard sealed.count >= SealedToBox.overhead else { return nil }
        let ephemeralPublic = Array(sealed.prefix(32))
        guard let shared = try? sharedSecret(with: ephemeralPublic),
              let box = try? ChaChaPoly.SealedBox(combined: sealed.dropFirst(32)),
              let plaintext = try? ChaChaPoly.open(box, using: SealedToBox.key(shared, ephemeralPublic, publicKeyBytes), authenticating: context)
        else { return nil }
        return Array(plaintext)
    }
}
