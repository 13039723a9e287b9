import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A box's own X25519 key pair: its mesh identity (`nodeID`) and the half of every
/// pairwise origin-authentication key.
///
/// Made once on first start; the daemon keeps `rawPrivateKey` (32 bytes) in a 0600 file
/// and restores it with `init(rawPrivateKey:)`.
public struct BoxKeyPair: Sendable {
    let privateKey: Curve25519.KeyAgreement.PrivateKey

    /// A fresh key pair from the system's secure random source. Never one whose node id
    /// would be the broadcast address.
    public init() {
        var key = Curve25519.KeyAgreement.PrivateKey()
        while NodeID(publicKey: Array(key.publicKey.rawRepresentation)) == .broadcast {
            key = Curve25519.KeyAgreement.PrivateKey()
        }
        privateKey = key
    }

    /// Restores a key pair from the 32 raw private-key bytes `rawPrivateKey` gave.
    public init(rawPrivateKey: [UInt8]) throws(MeshWireError) {
        guard rawPrivateKey.count == 32,
            let key = try? Curve25519.KeyAgreement.PrivateKey(rawRepresentation: rawPrivateKey)
        else { throw .badKey("private key must be 32 bytes, got \(rawPrivateKey.count)") }
        privateKey = key
    }

    /// The 32 private bytes, for the key file. Keep them secret.
    public var rawPrivateKey: [UInt8] { Array(privateKey.rawRepresentation) }

    /// The 32-byte public key, as carried in hello frames.
    public var publicKeyBytes: [UInt8] { Array(privateKey.publicKey.rawRepresentation) }

    /// This box's mesh address, derived from the public key.
    public var nodeID: NodeID { NodeID(publicKey: publicKeyBytes) }

    /// The X25519 shared secret with a peer's public key.
    func sharedSecret(with peerPublicKey: [UInt8]) throws(MeshWireError) -> SharedSecret {
        guard peerPublicKey.count == 32,
            let peer = try? Curve25519.KeyAgreement.PublicKey(rawRepresentation: peerPublicKey),
            let secret = try? privateKey.sharedSecretFromKeyAgreement(with: peer)
        else { throw .badKey("peer public key must be a valid 32-byte X25519 key") }
        return secret
    }
}

extension NodeID {
    /// The node id a public key proves: the first four bytes of its SHA-256, big-endian.
    public init(publicKey: [UInt8]) {
        let digest = Array(SHA256.hash(data: publicKey))
        self.init(UInt32(digest[0]) << 24 | UInt32(digest[1]) << 16 | UInt32(digest[2]) << 8 | UInt32(digest[3]))
    }
}
