#!/usr/bin/env python3
"""Conformance of Drift Box's hand-written Meshtastic codec with the `meshtastic` package.

Run by MeshtasticConformanceTests with the interpreter of a virtualenv that has
`meshtastic` from PyPI installed; it uses only that package's generated protobuf classes.

  meshtastic_conformance.py decode HEX   bytes our driver wrote to the serial port
                                          -> JSON list of the ToRadio messages in them
  meshtastic_conformance.py build        FromRadio messages built with the package
                                          -> JSON with their hex (and expected values)
"""
import json
import sys

from meshtastic.protobuf import channel_pb2, config_pb2, mesh_pb2, portnums_pb2

START1, START2, MAX_LEN = 0x94, 0xC3, 512


def frames(stream: bytes):
    """Splits a serial stream into frame payloads the way the meshtastic client does."""
    out, i = [], 0
    while i + 4 <= len(stream):
        if stream[i] != START1 or stream[i + 1] != START2:
            i += 1
            continue
        length = (stream[i + 2] << 8) | stream[i + 3]
        if length > MAX_LEN or i + 4 + length > len(stream):
            i += 1
            continue
        out.append(stream[i + 4:i + 4 + length])
        i += 4 + length
    return out


def decode(hex_stream: str):
    messages = []
    for payload in frames(bytes.fromhex(hex_stream)):
        message = mesh_pb2.ToRadio()
        message.ParseFromString(payload)
        kind = message.WhichOneof("payload_variant")
        entry = {"kind": kind}
        if kind == "packet":
            packet = message.packet
            entry.update({
                "to": packet.to, "channel": packet.channel, "hop_limit": packet.hop_limit,
                "want_ack": packet.want_ack, "id": packet.id,
                "has_decoded": packet.HasField("decoded"),
                "portnum": int(packet.decoded.portnum),
                "portnum_name": portnums_pb2.PortNum.Name(packet.decoded.portnum),
                "payload": packet.decoded.payload.hex(),
            })
            if packet.decoded.portnum == portnums_pb2.PortNum.TEXT_MESSAGE_APP:
                entry["text"] = packet.decoded.payload.decode("utf-8")
        elif kind == "want_config_id":
            entry["value"] = message.want_config_id
        elif kind == "heartbeat":
            entry["nonce"] = message.heartbeat.nonce
        elif kind == "disconnect":
            entry["value"] = message.disconnect
        messages.append(entry)
    return messages


def build():
    out = {}

    packet = mesh_pb2.FromRadio(id=7)
    p = packet.packet
    setattr(p, "from", 0xDEADBEEF)
    p.to = 0xFFFFFFFF
    p.channel = 2
    p.id = 0x01020304
    p.rx_time = 1_760_000_000
    p.rx_snr = 5.25
    p.rx_rssi = -97
    p.hop_limit = 2
    p.hop_start = 3
    p.want_ack = False
    p.priority = mesh_pb2.MeshPacket.Priority.DEFAULT
    p.decoded.portnum = portnums_pb2.PortNum.PRIVATE_APP
    p.decoded.payload = bytes(range(200))
    out["packet"] = packet.SerializeToString().hex()

    text = mesh_pb2.FromRadio()
    text.packet.to = 0xFFFFFFFF
    setattr(text.packet, "from", 0x11223344)
    text.packet.decoded.portnum = portnums_pb2.PortNum.TEXT_MESSAGE_APP
    text.packet.decoded.payload = "Grüße vom Camp".encode("utf-8")
    out["text_packet"] = text.SerializeToString().hex()

    info = mesh_pb2.FromRadio(id=1)
    info.my_info.my_node_num = 0x9A8B7C6D
    info.my_info.reboot_count = 12
    info.my_info.min_app_version = 30200
    info.my_info.pio_env = "heltec-v3"
    out["my_info"] = info.SerializeToString().hex()

    metadata = mesh_pb2.FromRadio(id=2)
    metadata.metadata.firmware_version = "2.5.6.d55c08d"
    metadata.metadata.device_state_version = 23
    metadata.metadata.hasBluetooth = True
    metadata.metadata.hw_model = mesh_pb2.HardwareModel.HELTEC_V3
    out["metadata"] = metadata.SerializeToString().hex()

    channel = mesh_pb2.FromRadio(id=3)
    channel.channel.index = 1
    channel.channel.role = channel_pb2.Channel.Role.SECONDARY
    channel.channel.settings.name = "DriftBox"
    channel.channel.settings.psk = bytes(range(16))
    out["channel"] = channel.SerializeToString().hex()

    config = mesh_pb2.FromRadio(id=4)
    config.config.lora.use_preset = True
    config.config.lora.modem_preset = config_pb2.Config.LoRaConfig.ModemPreset.MEDIUM_FAST
    config.config.lora.region = config_pb2.Config.LoRaConfig.RegionCode.EU_868
    config.config.lora.hop_limit = 5
    config.config.lora.tx_enabled = True
    config.config.lora.tx_power = 20
    out["config"] = config.SerializeToString().hex()

    complete = mesh_pb2.FromRadio(id=5)
    complete.config_complete_id = 0xCAFEF00D
    out["config_complete_id"] = complete.SerializeToString().hex()

    queue = mesh_pb2.FromRadio(id=6)
    queue.queueStatus.res = 0
    queue.queueStatus.free = 9
    queue.queueStatus.maxlen = 16
    queue.queueStatus.mesh_packet_id = 0x01020304
    out["queue_status"] = queue.SerializeToString().hex()

    rebooted = mesh_pb2.FromRadio(id=8)
    rebooted.rebooted = True
    out["rebooted"] = rebooted.SerializeToString().hex()

    # A serial stream as a node writes it: log text between frames.
    stream = b"INFO  | ??:??:?? 3 [Router] booted\r\n"
    for key in ("my_info", "metadata", "channel", "config_complete_id"):
        payload = bytes.fromhex(out[key])
        stream += bytes([START1, START2, len(payload) >> 8, len(payload) & 0xFF]) + payload
        stream += b"DEBUG | between frames\n"
    out["stream"] = stream.hex()
    return out


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "decode":
        print(json.dumps(decode(sys.argv[2] if len(sys.argv) > 2 else sys.stdin.read().strip())))
    elif len(sys.argv) >= 2 and sys.argv[1] == "build":
        print(json.dumps(build()))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
