/// A measured audio duration and the codec of the measured track.
struct AudioMeasurement: Sendable, Equatable {
    /// Where the duration came from, so tests can check which path a file took.
    enum Source: String, Sendable {
        case durationElement, blocks, movieHeader, mediaHeader, editList, fragments, granule, dataSize, frames
    }
    var durationSeconds: Double
    var codec: String?
    var source: Source
}
