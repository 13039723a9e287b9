import DriftCore
import Foundation
import Synchronization

/// Chat attachments uploaded and waiting for their message (`POST …/attachments`, then
/// `POST …/messages` naming it). The file already lies in the bottle's media folder, so
/// it is erased with the bottle whatever happens; entries expire after a while and their
/// files are removed by the API. Bounded.
final class StagedAttachments: Sendable {
    struct Entry: Sendable {
        var bottle: BottleID
        var participant: ParticipantID
        var attachment: ChatAttachment
        var expiresAt: Date
    }

    static let maximumEntries = 1_000
    private let entries = Mutex<[MessageID: Entry]>([:])

    /// Keeps `entry` under `id`; returns the expired entries dropped to make room.
    func stage(_ entry: Entry, as id: MessageID, now: Date) -> [Entry] {
        entries.withLock { entries in
            var dropped = entries.filter { $0.value.expiresAt <= now }
            for key in dropped.keys { entries[key] = nil }
            if entries.count >= Self.maximumEntries, let oldest = entries.min(by: { $0.value.expiresAt < $1.value.expiresAt }) {
                entries[oldest.key] = nil
                dropped[oldest.key] = oldest.value
            }
            entries[id] = entry
            return Array(dropped.values)
        }
    }

    /// Takes the staged attachment `id` if it belongs to `participant` in `bottle` and has not expired.
    func take(_ id: MessageID, bottle: BottleID, participant: ParticipantID, now: Date) -> ChatAttachment? {
        entries.withLock { entries in
            guard let entry = entries[id], entry.bottle == bottle, entry.participant == participant, entry.expiresAt > now else { return nil }
            entries[id] = nil
            return entry.attachment
        }
    }
}
