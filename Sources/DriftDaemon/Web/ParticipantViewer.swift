import DriftCore
import DriftStore

/// Builds ``APIViews/Participant`` values for one bottle as seen by one viewer.
struct ParticipantViewer: Sendable {
    let creator: ParticipantID
    let box: ParticipantID
    let viewer: ParticipantID?
    let labels: [ParticipantID: ParticipantLabel]

    init(bottle: Bottle, viewer: ParticipantID?, processor: BottleProcessor, participants: [StoredParticipant]) {
        creator = processor.participant(bottle.creator, in: bottle.id)
        box = processor.participant(BottleProcessor.boxKeeper, in: bottle.id)
        self.viewer = viewer
        labels = Dictionary(participants.compactMap { stored in stored.label.map { (stored.participant, $0) } }, uniquingKeysWith: { first, _ in first })
    }

    func view(_ participant: ParticipantID) -> APIViews.Participant {
        let avatar = participant.avatar
        return APIViews.Participant(
            id: participant.hex, avatar: .init(pattern: avatar.pattern, hue: avatar.hue),
            label: (labels[participant] ?? .local).rawValue, isMe: participant == viewer,
            isCreator: participant == creator, isBox: participant == box
        )
    }

    func viewing(as other: ParticipantID?) -> ParticipantViewer {
        ParticipantViewer(creator: creator, box: box, viewer: other, labels: labels)
    }

    private init(creator: ParticipantID, box: ParticipantID, viewer: ParticipantID?, labels: [ParticipantID: ParticipantLabel]) {
        self.creator = creator
        self.box = box
        self.viewer = viewer
        self.labels = labels
    }
}
