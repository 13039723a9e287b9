#if !DRIFT_MEDIA_FUZZ
import DriftCore
#endif

/// What `MediaProbe.audio` measured from an audio container.
public struct AudioInfo: Sendable, Equatable {
    /// The container (`.webm` also covers Matroska, `.mp4` also M4A and 3GP).
    public var format: AudioRef.Format
    /// Length of the audio track, seconds, from the container's own timing.
    public var durationSeconds: Double
    /// The codec of the measured track, lower case ("opus", "aac", "vorbis", "pcm", …), if known.
    public var codec: String?

    public init(format: AudioRef.Format, durationSeconds: Double, codec: String?) {
        self.format = format
        self.durationSeconds = durationSeconds
        self.codec = codec
    }
}
