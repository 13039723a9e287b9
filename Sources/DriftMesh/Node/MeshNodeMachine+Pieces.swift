/// The first hop of our directed messages: the origin hears its relay pass a message's pieces
/// on back to back and sends again at once a piece the relay did not pass on
/// (``Settings/missingPiecesResent``), or the whole message when no neighbour passed any of it
/// on in time (``Settings/firstHopRetry``).
extension MeshNodeMachine {
    /// A directed message of ours, on its first sending, while we listen for a relay passing
    /// its pieces on.
    struct OwnPieces: Sendable {
        var frames: [[UInt8]]
        var priority: TransmitPriority
        /// The pieces (indexes) heard passed on by a relay.
        var heard: Set<Int> = []
        /// When the pieces not heard by then are sent again: set when the first piece is heard
        /// passed on.
        var due: Duration?
        /// When the whole message is sent again if no piece was heard passed on by then
        /// (``Settings/firstHopRetry``): set when its last piece goes on the air.
        var firstHopDue: Duration?
        var sentAt: Duration
        /// How many times pieces were sent again (``Settings/missingPiecesRounds``).
        var rounds = 0
        /// The pieces sent again that have not gone on the air yet: when the last of them has,
        /// ``due`` is set for their relay (``resentPieceWentOut(_:at:)``).
        var resending: Set<Int> = []
    }

    /// The outbox hands `entry` to the router: on its first sending, a directed message to a box
    /// that is not our neighbour is listened for (of several pieces, or of one for the
    /// first-hop retry); on a later one (the quick retry, the outbox's schedule) no longer — the
    /// relays pass a retry's pieces on each after its own delay.
    mutating func listenForPieces(of entry: MeshDueMessage, at now: Duration) {
        let id = entry.id
        guard settings.missingPiecesResent && entry.frames.count > 1 || settings.firstHopRetry,
              !entry.isBroadcast, !piecesDone.contains(id) else { return }
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
        guard header.hopsTaken > 0 else { return }
        let id = header.messageKey
        guard var own = piecesPassedOn[id] else { return }
        let index = Int(header.fragment?.index ?? 0)
        own.heard.insert(index)
        if own.heard.count >= own.frames.count || !settings.missingPiecesResent {
            stopListeningForPieces(id)  // every piece is on its way (or some, and that is all we listen for)
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

    /// The last piece of our message `id` went on the air (its end: `end`): with
    /// ``Settings/firstHopRetry``, when its destination is two hops away, the moment by which a
    /// neighbour should have passed a piece on. Whether that moment was set.
    @discardableResult
    mutating func awaitFirstHop(_ id: PacketKey, to destination: NodeID, lastFrameEnds end: Duration) -> Bool {
        guard settings.firstHopRetry, var own = piecesPassedOn[id], own.heard.isEmpty, own.firstHopDue == nil,
              let bound = firstRelayBound(toward: destination) else { return false }
        let first = LoRaAirtime.duration(payloadBytes: own.frames[0].count, modulation: settings.modulation)
        own.firstHopDue = end + jitteredRetry(bound + first + settings.answerTurnaround + settings.quickRetryMargin)
        piecesPassedOn[id] = own
        return true
    }

    /// Whether the first-hop retry of our message `id`, not armed as its last piece went out,
    /// waits for a neighbour whose hello lists `destination` (``Settings/retriesArmedOnceTheWayIsKnown``):
    /// no piece was heard passed on yet, and `destination` is not a neighbour, nor listed by one.
    func firstHopMayWaitForTheWay(_ id: PacketKey, to destination: NodeID) -> Bool {
        guard settings.retriesArmedOnceTheWayIsKnown, settings.firstHopRetry,
              let own = piecesPassedOn[id], own.heard.isEmpty, own.firstHopDue == nil else { return false }
        return !router.neighbours.contains { $0.id == destination || $0.neighbours[destination] != nil }
    }

    /// The longest a neighbour that hears `destination` waits before passing a packet for it
    /// on: behind the others that hear it too (one rank step each, at most ``MeshRouterConfiguration/rankCap``
    /// − 1) and the widest relay jitter; `nil` when `destination` is our neighbour or no
    /// neighbour's hello lists it. 4.9 s at LongFast with one such neighbour, 0.6 s at SF7.
    func firstRelayBound(toward destination: NodeID) -> Duration? {
        let neighbours = router.neighbours
        guard !neighbours.contains(where: { $0.id == destination }) else { return nil }
        let relays = neighbours.filter { $0.neighbours[destination] != nil }.count
        guard relays > 0 else { return nil }
        let c = settings.router
        let jitter = max(c.jitterSlots, c.busyJitterSlots ?? 0, c.leaderJitterSlots ?? 0, c.busyLeaderJitterSlots ?? 0)
        return c.slot * ((min(relays, c.rankCap) - 1) * c.slotsPerRank + jitter)
    }

    /// Our messages whose relay passed some pieces on and not the others in time: the others
    /// go once more (``MeshCounters/piecesResent``); and those of which no piece was heard
    /// passed on in time: every piece goes once more (``MeshCounters/firstHopRetries``).
    /// Earliest first.
    mutating func missingPiecesDue(at now: MeshNodeTime) {
        let t = now.monotonic
        func dueAt(_ own: OwnPieces) -> Duration? { own.heard.isEmpty ? own.firstHopDue : own.due }
        let due = piecesPassedOn.compactMap { id, own in dueAt(own).flatMap { $0 <= t ? ($0, id, own) : nil } }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        for (_, id, own) in due {
            let again = !own.heard.isEmpty && own.rounds + 1 < settings.missingPiecesRounds
            if !again { stopListeningForPieces(id) }
            let missing = own.frames.indices.filter { !own.heard.contains($0) }
            if own.heard.isEmpty {
                if crowdedForRetries(at: t) {
                    counters.firstHopRetriesBusy += 1  // lost to collisions, most likely: the outbox decides
                    continue
                }
                counters.firstHopRetries += 1
                log(.info, "mesh message sent again: no neighbour passed it on", ["id": "\(id)"])
            } else {
                log(.info, "mesh pieces sent again: the relay passed the others on", ["id": "\(id)", "pieces": "\(missing)",
                                                                                     "round": "\(own.rounds + 1)"])
                counters.piecesResent += missing.count
                if again {
                    // Listened for again: the relay passes a late piece on at once.
                    var next = own
                    next.rounds += 1
                    next.due = nil
                    next.resending = Set(missing)
                    piecesPassedOn[id] = next
                }
            }
            for index in missing { enqueue(own.frames[index], priority: own.priority, counter: \.sentOwn) }
        }
    }

    /// A frame of ours went on the air: when it is the last of the pieces of `header`'s message
    /// sent again (``Settings/missingPiecesRounds``), the pieces not heard passed on by the end of
    /// the relay's copy of it — its airtime again — the turnaround and
    /// ``Settings/quickRetryMargin`` go once more.
    mutating func resentPieceWentOut(_ frame: OutgoingFrame, _ header: MeshHeader, at now: Duration) {
        let id = header.messageKey
        guard var own = piecesPassedOn[id], own.rounds > 0, own.due == nil,
              own.resending.remove(Int(header.fragment?.index ?? 0)) != nil else { return }
        if own.resending.isEmpty {
            own.due = now + frame.airtime * 2 + settings.answerTurnaround + settings.quickRetryMargin  // ours, then the relay's copy
        }
        piecesPassedOn[id] = own
    }

    /// No more listening for `id`'s pieces (done, acknowledged, or sent again whole).
    mutating func stopListeningForPieces(_ id: PacketKey) {
        piecesPassedOn[id] = nil
        piecesDone.insert(id)
        if piecesDone.count > 1_024 { piecesDone.removeFirst() }
    }
}
