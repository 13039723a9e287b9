import Foundation

/// A media file attached to a chat line.
public enum ChatAttachment: Sendable, Equatable, Codable {
    case image(ImageRef)
    case audio(AudioRef)

    public var path: MediaPath {
        switch self {
        case .image(let image): image.path
        case .audio(let audio): audio.path
        }
    }
}
