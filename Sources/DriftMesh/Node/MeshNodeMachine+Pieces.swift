/// Missing pieces: the origin of a directed message of several pieces hears its relay pass them
/// on back to back, and sends again at once a piece the relay did not pass on
/// (``Settings/missingPiecesResent``).
extension MeshNodeMachine {
    /// A directed message of ours in several pieces, on its first sending, while we listen for
    /// its relay passing the pieces on.
    struct OwnPieces: Sendable {
        var frames: [[UInt8]]
        var priority: TransmitPriority
        /// The pieces (indexes) heard passed on by a relay.
        var heard: Set<Int> = []
        /// When the pieces not heard by then are sent again: set when the first piece is heard
        /// passed on.
        var due: Duration?
        var sentAt: Duration
    }

    /// The outbox hands `entry` to the router: on its first sending, a directed message of
    /// several pieces to a box that is not our neighbour is listened for; on a later one (the
    /// quick retry, the outbox's schedule) no longer — the relays pass a retry's pieces on each
    /// after its own delay.
    mutating func listenForPieces(of entry: MeshDueMessage, at now: Duration) {
        let id = entry.id
        guard settings.missingPiecesResent, !entry.isBroadcast, entry.frames.count > 1, !piecesDone.contains(id) else { return }
        guard piecesPassedOn[id] == nil else {
            stopListeningForPieces(id)
            return
        }
        if let destination = entry.destination, hops(to: destination, at: now) == 1 { return }  // no relay: the quick retry
        piecesPassedOn[id] = OwnPieces(frames: entry.frames, priority: TransmitPriority(rawValue: entry.priority) ?? .normal, sentAt: now)
    }

    /// A relay's copy of piece `header` of our message was heard: the pieces before it went
    /// first, and those after it follow back to back — each its airtime and the turnaround. The
    /// pieces not heard passed on are due again once the first of them should have been heard,
    /// plus ``Settings/quickRetryMargin``.
    mutating func heardPiecePassedOn(_ header: MeshHeader, at t: Duration) {
        guard let fragment = header.fragment, header.hopsTaken > 0 else { return }
        let id = header.messageKey
        guard var own = piecesPassedOn[id] else { return }
        let index = Int(fragment.index)
        own.heard.insert(index)
        if own.heard.count >= own.frames.count {
            stopListeningForPieces(id)  // every piece is on its way
            return
        }
        var wait = Duration.zero
        if !(0..<index).contains(where: { !own.heard.contains($0) }), let next = (index + 1..<own.frames.count).first(where: { !own.heard.contains($0) }) {
            for frame in own.frames[(index + 1)...next] {
                wait += LoRaAirtime.duration(payloadBytes: frame.count, modulation: settings.modulation) + settings.answerTurnaround
            }
        }
        let due = t + wait + settings.quickRetryMargin
        own.due = min(own.due ?? due, due)
        piecesPassedOn[id] = own
    }

    /// Our messages whose relay passed some pieces on and not the others in time: the others
    /// go once more (``MeshCounters/piecesResent``), earliest first.
    mutating func missingPiecesDue(at now: MeshNodeTime) {
        let t = now.monotonic
        let due = piecesPassedOn.filter { $0.value.due.map { $0 <= t } ?? false }
            .sorted { ($0.value.due!, $0.key) < ($1.value.due!, $1.key) }
        for (id, own) in due {
            stopListeningForPieces(id)
            let missing = own.frames.indices.filter { !own.heard.contains($0) }
            log(.info, "mesh pieces sent again: the relay passed the others on", ["id": "\(id)", "pieces": "\(missing)"])
            for index in missing {
                counters.piecesResent += 1
                enqueue(own.frames[index], priority: own.priority, counter: \.sentOwn)
            }
        }
    }

    /// No more listening for `id`'s pieces (done, acknowledged, or sent again whole).
    mutating func stopListeningForPieces(_ id: PacketKey) {
        piecesPassedOn[id] = nil
        piecesDone.insert(id)
        if piecesDone.count > 1_024 { piecesDone.removeFirst() }
    }
}
