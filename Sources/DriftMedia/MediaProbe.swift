#if !DRIFT_MEDIA_FUZZ
import DriftCore
#endif

/// Identifies uploads by their content and reads what the domain limits need:
/// an image's format and size, an audio clip's container, duration and codec.
///
/// Nothing the client claims (Content-Type, file name, duration) is used. Both
/// functions are total on any input: they return or throw `MediaProbeError`, never
/// crash, allocate only small bounded amounts and finish in time linear in the input.
public enum MediaProbe {
    /// Identifies an image by magic bytes and reads its dimensions from the header
    /// (JPEG: marker walk to EOI incl. progressive, skipping APPn/COM; PNG: signature,
    /// IHDR and every chunk's CRC to IEND; WebP: RIFF/WEBP with a VP8, VP8L or VP8X chunk).
    public static func image(_ bytes: [UInt8]) throws(MediaProbeError) -> ImageInfo {
        if JPEGProbe.matches(bytes) {
            let size = try JPEGProbe.probe(bytes)
            return ImageInfo(format: .jpeg, width: size.width, height: size.height)
        }
        if PNGProbe.matches(bytes) {
            let size = try PNGProbe.probe(bytes)
            return ImageInfo(format: .png, width: size.width, height: size.height)
        }
        if WebPProbe.matches(bytes) {
            let size = try WebPProbe.probe(bytes)
            return ImageInfo(format: .webp, width: size.width, height: size.height)
        }
        throw MediaProbeError(.unknownFormat, "not a JPEG, PNG or WebP image")
    }

    /// Identifies an audio container and measures its duration from the container:
    /// WebM/Matroska (EBML walk; Duration element or the end of the last audio block),
    /// MP4/M4A/3GP (mdhd/mvhd, plus trun sample durations when fragmented),
    /// Ogg (last granule position of the Opus or Vorbis stream), WAV (data size / byte rate)
    /// and MP3 (Layer III frame walk).
    /// See docs/media.md for the details and what is refused.
    public static func audio(_ bytes: [UInt8]) throws(MediaProbeError) -> AudioInfo {
        if WebMProbe.matches(bytes) {
            let m = try WebMProbe.measure(bytes)
            return AudioInfo(format: .webm, durationSeconds: m.durationSeconds, codec: m.codec)
        }
        if MP4Probe.matches(bytes) {
            let m = try MP4Probe.measure(bytes)
            return AudioInfo(format: .mp4, durationSeconds: m.durationSeconds, codec: m.codec)
        }
        if OggProbe.matches(bytes) {
            let m = try OggProbe.measure(bytes)
            return AudioInfo(format: .ogg, durationSeconds: m.durationSeconds, codec: m.codec)
        }
        if WAVProbe.matches(bytes) {
            let m = try WAVProbe.measure(bytes)
            return AudioInfo(format: .wav, durationSeconds: m.durationSeconds, codec: m.codec)
        }
        if MP3Probe.matches(bytes) {
            let m = try MP3Probe.measure(bytes)
            return AudioInfo(format: .mpeg, durationSeconds: m.durationSeconds, codec: m.codec)
        }
        throw MediaProbeError(.unknownFormat, "not a WebM, MP4/M4A/3GP, Ogg, WAV or MP3 audio file")
    }
}
