// The embedded default configuration: a byte-for-byte copy of board/sim.toml.
// DriftConfigTests checks that the two are identical; after editing board/sim.toml,
// paste its contents between the delimiters below (no indentation).

extension DriftConfiguration {
    /// Name used for the embedded default in issues and `LoadedConfiguration.files`.
    public static let embeddedDefaultName = "<embedded board/sim.toml>"

    /// The text of `board/sim.toml`, the configuration `driftd run` uses without `--config`.
    public static let embeddedDefaultText = #"""
# Drift Box board profile: sim — everything simulated.
#
# Runs on any Linux or macOS machine without hardware: simulated GPIO chip,
# GPS, radio (UDP on loopback) and weather. This file is also embedded in
# driftd as the default configuration (`driftd run` without --config).
# Every key is documented in docs/config.md; pin maps are in docs/boards.md.
#
# To run several simulated boxes side by side, give each its own data
# directory, HTTP port and radio_udp_port, and list the others in radio_peers.

[box]
name = "Drift Box (simulated)"
id = ""                       # generated on first start
country = "DE"
timezone = "Europe/Berlin"
board = "sim"

[storage]
data_dir = "./var"            # relative to the working directory
min_free_mb = 64

[http]
listen = "127.0.0.1:8080"

[access_point]
# The visitor Wi-Fi (hostapd + dnsmasq, docs/installing.md): visitors join it and
# every name resolves to the box, so phones land on http://10.42.0.1/.
enabled = false               # no Wi-Fi on the simulated board; `driftd ap render` still works
interface = "wlan0"
ssid = ""                     # "" = box.name (cut to 32 bytes)
passphrase = ""               # "" = open network; or 8-63 characters for WPA2
channel = 6                   # 1-13; which are legal depends on box.country
address = "10.42.0.1/24"      # the box's address on the access point
dhcp_start = ""               # "" = 10th address of the subnet (10.42.0.10)
dhcp_end = ""                 # "" = 5 below the broadcast address (10.42.0.250)
dhcp_lease_m = 60
captive_dns = true            # answer every DNS name with the box's address

[bottles]
chat_lifespan_s = 3600        # an opened chat lives 1 h past the last visitor inside
chat_countdown_s = 30         # then dies 30 s after the last one leaves, unless rescued

[control]
socket = ""                   # "" = <data_dir>/driftd.sock

[daemon]
log_level = "info"
shutdown_timeout_s = 10
watchdog = true
# trim_memory = true          # give back the start-up code's pages once settled; left out: beacon profile only (docs/performance.md)

[features]
visitor_page = true
mesh = true
metrics = false

[metrics]
listen = "127.0.0.1:9101"

[mesh]
# TEST-ONLY key, published here: base64 of "drift-sim-test-key-do-not-deploy".
# Anyone can forge frames with it. Real boxes need their own:
#   head -c 32 /dev/urandom | base64
network_key = "ZHJpZnQtc2ltLXRlc3Qta2V5LWRvLW5vdC1kZXBsb3k="
hop_limit = 7                 # relays at most; 7 = the header's limit (the router prunes)
# hello_interval_s = 300      # neighbour beacons; left out: 300 s, 900 s in a 1 % sub-band (docs/config.md)
message_lifetime_h = 72       # how long a sent message stays deliverable (store-and-forward)
hold_packets = 5000           # packets kept for neighbours that missed them
paced_repair = true           # a box that missed a packet asks its neighbours within minutes
topology_plan = false         # relays planned on the whole mesh (trial: docs/mesh-routing.md)

[camp]
# The multi-camp protocol (docs/camps.md). An empty name: this box is no camp; it
# still keeps the directory of camps it hears and shows it on the visitor page.
name = ""
members = 0                   # people in the camp (0–65535), sent with every announce
note = ""                     # short note sent with every announce (≤ 64 bytes)
# announce_interval_s = 300   # seconds between announces (60–86400, ±10 %); left out: 300 s, 3000 s in a 1 % sub-band
forget_after_h = 24           # camps unheard this long are forgotten
forget_after_s = 0            # non-zero: overrides forget_after_h, in seconds (tests)
hop_limit = 3                 # hops camp traffic travels ("nearby"); emergencies +3, at most 7
beacon_kit = false            # true: the same as power.profile = "beacon" (needs a name)
meshtastic_text = false       # also publish camp messages as text on a Meshtastic channel

[power]
# docs/power.md. "beacon": a camp beacon kit on a battery (no HTTP server, no access
# point, only the status LED, HDMI off, the GPS asleep between position checks).
profile = "default"
gps_receiver = "auto"         # auto, ublox, mediatek or none: the GPS's sleep and fix-rate commands
gps_wake_interval_s = 1800    # beacon: the GPS sleeps this long between position checks
gps_check_s = 120             # beacon: the longest one position check keeps it awake

[radio]
kind = "sim"
port = "sim"
baud = 9600
region = "EU868"
frequency_mhz = 869.525
tx_power_dbm = 14
spreading_factor = 11
bandwidth_khz = 250
coding_rate = 5

[gps]
kind = "sim"
port = "sim"
baud = 0
gpsd_address = "127.0.0.1:2947"
max_hdop = 5.0
max_fix_age_s = 30
settled_fix_interval_s = 10   # once the box's position stands: one fix every 10 s (1 = every second)

[sim]
latitude = 52.4731            # Tempelhofer Feld, Berlin
longitude = 13.4019
altitude_m = 44.0
nmea_replay = ""              # e.g. "../shared/data/nmea/neo-m8n.log"
radio_udp_port = 47300
radio_peers = []              # e.g. ["127.0.0.1:47301"]
radio_range_m = 0             # hard range between simulated boxes; 0 = path loss decides
radio_path_loss_exponent = 3.0
radio_loss = 0.0              # probability a frame in range is lost
radio_latency_ms = 0
radio_collisions = true       # frames heard on the air together collide (the weaker, or both within 6 dB, lost)

[gpio]
backend = "sim"
chip = "drift-sim"            # the simulated chip's label
# Every button, LED, rain and E22 line below must be one of these (the simulated chip's lines);
# `driftd config check` refuses any other name.
lines = ["presence", "keep-alive", "led-status", "led-bottle", "led-radio", "led-gps", "rain", "e22-m0", "e22-m1", "e22-aux"]

# Simulated lines carry the same names as the gpio-sim chip of x86_64-qemu.
# The comments give the matching line on a Raspberry Pi's 40-pin header.
[buttons]
presence = "presence"         # Pi: GPIO17, pin 11
keep_alive = "keep-alive"     # Pi: GPIO16, pin 36
debounce_ms = 30
long_press_ms = 2000

[leds]
status = "led-status"         # Pi: GPIO18, pin 12
bottle = "led-bottle"         # Pi: GPIO23, pin 16
radio = "led-radio"           # Pi: GPIO24, pin 18
gps = "led-gps"               # Pi: GPIO25, pin 22

[rain]
line = "rain"                 # Pi: GPIO26, pin 37
mm_per_tip = 0.2794

[i2c]
bus = "sim"                   # Pi: /dev/i2c-1 on GPIO2/GPIO3, pins 3/5
bme280_address = 0x76
bme280 = true

[onewire]
ds18b20 = false
devices_dir = "/sys/bus/w1/devices"

[e22]
m0 = "e22-m0"                 # Pi: GPIO22, pin 15
m1 = "e22-m1"                 # Pi: GPIO27, pin 13
aux = "e22-aux"               # Pi: not wired on the Waveshare HAT
address = 0                   # module address (ADDH/ADDL), 0-65535
net_id = 0                    # network id (NETID), 0-255
sub_packet_bytes = 240        # 240, 128, 64 or 32: the largest frame sent as one packet
lbt = false                   # listen before talk
air_rate_kbps = 2.4           # 0.3 1.2 2.4 4.8 9.6 19.2 38.4 62.5; the same on every box

[meshtastic]                  # used with radio.kind = "meshtastic"; the defaults:
# channel = 0                 # channel index (0-7) our frames ride on the node
# hop_limit = 3               # Meshtastic's hop limit for our frames (Meshtastic relays)
# text_channel = 0            # camp beacons and bottle notices as text here; -1 = off

[mqtt]                        # gateway: bridge this mesh to others over an MQTT broker (docs/mqtt.md)
enabled = false
host = "127.0.0.1"
port = 1883                   # 8883 with TLS
tls = false
ca_file = ""                  # with tls: the CA that signed the broker's certificate
cert_file = ""                # optional client certificate and key (both or neither)
key_file = ""
username = ""
password = ""                 # or password_file (not both)
password_file = ""
topic_prefix = "driftbox"     # fleets sharing a broker use different prefixes
client_id = ""                # "" = the box id
keepalive_s = 30
queue_limit = 5000            # frames kept in SQLite while the broker is away; the oldest go first
telemetry_interval_s = 60

"""#
}
