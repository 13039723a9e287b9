import Crypto

extension MeshSealer {
    /// A short public name of a network key (8 lowercase hex characters, HKDF-SHA256 with
    /// info "mqtt-net"): gateways of one network meet under it on an MQTT broker. It reveals
    /// nothing usable about the key.
    public static func networkTag(networkKey: [UInt8]) -> String {
        let tag = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: networkKey), salt: kdfSalt, info: Array("mqtt-net".utf8), outputByteCount: 4)
        return tag.withUnsafeBytes { raw in raw.map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined() }
    }
}
