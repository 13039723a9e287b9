import DriftCore

/// Why a ``BottleStore`` operation was refused. Database failures (I/O, a full disk)
/// come through unchanged as GRDB's `DatabaseError`.
public enum BottleStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No bottle with this id (never created, or already erased).
    case notFound(BottleID)
    /// The transition table or an ownership rule forbids the change.
    case lifecycle(BottleID, LifecycleError)
    /// Every generated share code collided with a live bottle's code.
    case shareCodeExhausted(attempts: Int)
    /// A bottle with this id already exists.
    case duplicateBottle(BottleID)
    /// Chat lines, participants and survival exist only while the bottle is `active` or `dying`.
    case chatClosed(BottleID, state: BottleState)
    /// A media file does not belong to the bottle (or message) it is attached to.
    case foreignMedia(MediaPath, BottleID)
    /// A stored value could not be decoded (schema drift or corruption).
    case corruptRow(column: String, row: String, problem: String)

    public var description: String {
        switch self {
        case .notFound(let id): "bottle \(id) not found"
        case .lifecycle(let id, let error): "bottle \(id): \(error)"
        case .shareCodeExhausted(let attempts): "no free share code after \(attempts) attempts"
        case .duplicateBottle(let id): "bottle \(id) already exists"
        case .chatClosed(let id, let state): "bottle \(id) has no live chat (state \(state.rawValue))"
        case .foreignMedia(let path, let id): "media \(path) does not belong to bottle \(id)"
        case .corruptRow(let column, let row, let problem): "stored \(column) of \(row) is unreadable: \(problem)"
        }
    }
}
