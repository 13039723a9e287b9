/// Who is inside one chat, by live connections: a participant is present while at
/// least one of their connections is open (two tabs count once), and presence
/// ends when the last one disconnects.
public struct PresenceSet: Sendable, Equatable {
    private var connections: [ConnectionID: ParticipantID] = [:]

    public init() {}

    /// Registers a connection. Returns `true` when `participant` was not present before.
    @discardableResult
    public mutating func connect(_ connection: ConnectionID, as participant: ParticipantID) -> Bool {
        let wasPresent = isPresent(participant)
        if let previous = connections[connection], previous != participant {
            connections[connection] = nil
        }
        connections[connection] = participant
        return !wasPresent
    }

    /// Removes a connection. Returns the participant when this was their last one
    /// (they left), `nil` otherwise (unknown connection or other tabs still open).
    @discardableResult
    public mutating func disconnect(_ connection: ConnectionID) -> ParticipantID? {
        guard let participant = connections.removeValue(forKey: connection) else { return nil }
        return isPresent(participant) ? nil : participant
    }

    public func isPresent(_ participant: ParticipantID) -> Bool {
        connections.values.contains(participant)
    }

    /// Participants present now.
    public var participants: Set<ParticipantID> { Set(connections.values) }

    public var isEmpty: Bool { connections.isEmpty }

    public var connectionCount: Int { connections.count }
}
