import DriftCore
import Foundation
import GRDB

/// One row of `mediaFile`: a file of the bottle's media folder, by relative path.
struct MediaFileRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "mediaFile"

    var path: String
    var bottleID: String
    var messageID: String?
    var role: String
    var byteCount: Int
    var createdAt: Int64

    enum Columns {
        static let bottleID = Column(CodingKeys.bottleID)
        static let path = Column(CodingKeys.path)
    }

    var file: StoredMediaFile {
        get throws {
            do {
                guard let role = StoredMediaFile.Role(rawValue: role) else {
                    throw BottleStoreError.corruptRow(column: "mediaFile.role", row: path, problem: self.role)
                }
                return StoredMediaFile(path: try MediaPath(path), message: messageID.flatMap(MessageID.init),
                                       role: role, byteCount: byteCount, createdAt: StoredTime.date(createdAt))
            } catch let error as BottleStoreError {
                throw error
            } catch {
                throw BottleStoreError.corruptRow(column: "mediaFile.path", row: path, problem: "\(error)")
            }
        }
    }
}

/// A media file the database knows about (the bytes live under the data directory).
public struct StoredMediaFile: Sendable, Equatable {
    public enum Role: String, Sendable, Codable {
        /// The bottle's image.
        case image
        /// The bottle's audio whisper.
        case whisper
        /// A chat line's attachment.
        case attachment
    }

    /// Relative to the data directory, e.g. `media/bottles/{bottle}/content/image.webp`.
    public var path: MediaPath
    /// The chat line it is attached to, for attachments.
    public var message: MessageID?
    public var role: Role
    public var byteCount: Int
    public var createdAt: Date
}
