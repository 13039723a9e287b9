#!/usr/bin/env bash
# Regenerates the small real media files used by DriftMediaTests.
# Needs ffmpeg/ffprobe (apt-get install ffmpeg) and jpegtran (apt-get install libjpeg-turbo-progs).
# Usage: scripts/make-media-fixtures.sh   (from anywhere; writes Tests/DriftMediaTests/Fixtures/)
# Prints each fixture's duration / size as ffprobe sees it; the tests hold these values.
set -eu
source "$(dirname "${BASH_SOURCE[0]}")/lib/fail-loudly.sh"   # a failure names its line and command
root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/Tests/DriftMediaTests/Fixtures"
rm -rf "$out"
mkdir -p "$out"
ff="ffmpeg -hide_banner -loglevel error -y -bitexact"

sine() { echo "sine=frequency=440:sample_rate=48000:duration=$1"; }

# --- Audio -----------------------------------------------------------------
opus="-c:a libopus -b:a 12k -ac 1"
# Seekable WebM: ffmpeg writes a Duration element.
$ff -f lavfi -i "$(sine 3)" $opus -f webm "$out/whisper-3s.webm"
# Chromium MediaRecorder style: live, written to a pipe, so no Duration, no Cues and an
# unknown-size Segment. ffmpeg still sizes each Cluster; Chromium does not, so each
# Cluster's size is rewritten as "unknown" (all value bits set, same length).
for s in 1 3 9; do
    $ff -f lavfi -i "$(sine $s)" $opus -f webm -live 1 -cluster_time_limit 1000 pipe:1 | cat > "$out/chromium-${s}s.webm"
    python3 - "$out/chromium-${s}s.webm" <<'PY'
import sys
path = sys.argv[1]
data = bytearray(open(path, "rb").read())

def vint(at, keep_marker):
    first = data[at]
    length = 8 - first.bit_length() + 1
    value = first if keep_marker else first & (0xFF >> length)
    for b in data[at + 1:at + length]:
        value = value << 8 | b
    return value, length

at = 0
_, n = vint(at, True); size, m = vint(at + n, False); at += n + m + size  # EBML header
_, n = vint(at, True); _, m = vint(at + n, False); at += n + m            # Segment (unknown size)
clusters = 0
while at < len(data):
    ident, n = vint(at, True)
    size, m = vint(at + n, False)
    if ident == 0x1F43B675:
        data[at + n] = 0xFF >> (m - 1)
        data[at + n + 1:at + n + m] = b"\xff" * (m - 1)
        clusters += 1
    at += n + m + size
assert clusters > 0, "no clusters found"
open(path, "wb").write(bytes(data))
PY
done
$ff -f lavfi -i "$(sine 3)" $opus "$out/whisper-3s.opus.ogg"
$ff -f lavfi -i "$(sine 3)" -c:a libvorbis -q:a 0 -ac 1 "$out/whisper-3s.vorbis.ogg"
aac="-c:a aac -b:a 24k -ac 1"
$ff -f lavfi -i "$(sine 3)" $aac -movflags +faststart "$out/whisper-3s.mp4"
# Safari style: fragmented, empty moov (mvhd duration 0) and moof/trun per fragment.
$ff -f lavfi -i "$(sine 3)" $aac -movflags frag_keyframe+empty_moov+default_base_moof -frag_duration 500000 "$out/safari-3s-frag.mp4"
$ff -f lavfi -i "$(sine 3)" $aac -f ipod "$out/whisper-3s.m4a"
$ff -f lavfi -i "sine=frequency=440:sample_rate=8000:duration=3" -c:a aac -b:a 12k -ac 1 -f 3gp "$out/whisper-3s.3gp"
$ff -f lavfi -i "sine=frequency=440:sample_rate=22050:duration=3" -c:a libmp3lame -b:a 16k -ac 1 "$out/whisper-3s.mp3"
$ff -f lavfi -i "sine=frequency=440:sample_rate=8000:duration=3" -c:a pcm_u8 -ac 1 "$out/whisper-3s.wav"

# --- Images ----------------------------------------------------------------
src="testsrc2=size=97x61:duration=1,format=rgb24"
$ff -f lavfi -i "$src" -frames:v 1 -c:v mjpeg -pix_fmt yuvj420p -q:v 8 "$out/baseline-97x61.jpg"
jpegtran -progressive -copy none -outfile "$out/progressive-97x61.jpg" "$out/baseline-97x61.jpg"
$ff -f lavfi -i "$src" -frames:v 1 -c:v png "$out/image-97x61.png"
$ff -f lavfi -i "$src" -frames:v 1 -c:v libwebp -lossless 0 -q:v 50 "$out/lossy-97x61.webp"
$ff -f lavfi -i "$src" -frames:v 1 -c:v libwebp -lossless 1 "$out/lossless-97x61.webp"
# Half-transparent, so libwebp writes VP8X + ALPH + VP8.
$ff -f lavfi -i "testsrc2=size=97x61:duration=1,format=rgba,colorchannelmixer=aa=0.5" -frames:v 1 -c:v libwebp -lossless 0 -q:v 50 -pix_fmt yuva420p "$out/alpha-97x61.webp"

# --- Report ----------------------------------------------------------------
for f in "$out"/*; do
    name=$(basename "$f")
    case "$name" in
    *.jpg|*.png|*.webp)
        echo "$name $(ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0 "$f")" ;;
    *)
        # The end of the last packet (pts + duration) is the true length, also when the
        # container carries no duration of its own.
        last=$(ffprobe -v error -select_streams a:0 -show_entries packet=pts_time,duration_time -of csv=p=0 "$f" | grep -v '^$' | tail -1)
        echo "$name format=$(ffprobe -v error -show_entries format=duration -of csv=p=0 "$f") lastpacket=$last" ;;
    esac
done
du -cb "$out"/* | tail -1
