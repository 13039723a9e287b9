import DriftCore
import GRDB

/// One row of `creatorPreferences`: a creator's notification choices for one bottle.
struct CreatorPreferencesRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "creatorPreferences"

    var bottleID: String
    var firstOpen: Bool
    var participantJoined: Bool
    var linesWhileAway: Bool

    init(bottle: BottleID, _ preferences: NotificationPreferences) {
        bottleID = bottle.description
        firstOpen = preferences.firstOpen
        participantJoined = preferences.participantJoined
        linesWhileAway = preferences.linesWhileAway
    }

    var preferences: NotificationPreferences {
        NotificationPreferences(firstOpen: firstOpen, participantJoined: participantJoined, linesWhileAway: linesWhileAway)
    }
}
