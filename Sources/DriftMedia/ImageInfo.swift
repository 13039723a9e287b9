#if !DRIFT_MEDIA_FUZZ
import DriftCore
#endif

/// What `MediaProbe.image` read from an image file's own header.
public struct ImageInfo: Sendable, Equatable {
    public var format: ImageRef.Format
    /// Pixels, as stored (EXIF orientation is not applied).
    public var width: Int
    public var height: Int

    public init(format: ImageRef.Format, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }
}
