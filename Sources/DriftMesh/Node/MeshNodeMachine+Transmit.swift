/// The transmit queue and the quiet rule: what goes on the air, and when.
extension MeshNodeMachine {
    /// Queues a frame for the radio; returns its queue id (`nil` when refused).
    @discardableResult
    mutating func enqueue(_ frame: [UInt8], priority: TransmitPriority, counter: WritableKeyPath<MeshCounters, Int>) -> UInt64? {
        guard frame.count <= settings.maximumFrameBytes else {
            counters.queueRefused += 1
            return nil
        }
        let outgoing = OutgoingFrame(id: nextFrameID, bytes: frame, modulation: settings.modulation, priority: priority)
        nextFrameID += 1
        switch queue.enqueue(outgoing) {
        case .queued:
            counters[keyPath: counter] += 1
            return outgoing.id
        case .queuedDroppingOldest(let dropped):
            counters[keyPath: counter] += 1
            counters.queueDropped += 1
            forgetQueued(dropped)
            return outgoing.id
        case .refused(let refusal):
            counters.queueRefused += 1
            log(.warning, "mesh frame refused by the airtime budget", ["reason": "\(refusal)"])
            return nil
        }
    }

    /// Forgets what frame `id`, gone from the queue without going on air (the oldest of a
    /// full class), was: a catch-up copy of a packet still marked queued would never be sent
    /// again, since answers skip the packets they find queued.
    mutating func forgetQueued(_ id: UInt64) {
        if let copy = queuedCopyKeys.removeValue(forKey: id), queuedCopies[copy.key] == id { queuedCopies[copy.key] = nil }
        queuedSync[id] = nil
    }

    /// Takes a queued relay or catch-up copy of `key` back off the queue (it became redundant).
    mutating func unqueue(_ key: PacketKey) -> Bool {
        guard let id = queuedCopies.removeValue(forKey: key) else { return false }
        queuedCopyKeys[id] = nil
        return queue.remove(id: id)
    }

    /// Remembers a queued relay (`catchUp` false) or catch-up copy of `key`.
    mutating func track(_ id: UInt64?, _ key: PacketKey, catchUp: Bool) {
        guard let id else { return }
        queuedCopies[key] = id
        queuedCopyKeys[id] = (key, catchUp)
    }

    /// The radio is free: the next frame to put on the air now, or when to ask again
    /// (nothing when nothing is queued).
    mutating func nextTransmission(at time: MeshNodeTime) {
        let now = time.monotonic
        // Half duplex: while a neighbour is still sending the rest of a fragmented message,
        // transmitting would make us deaf to it (and every retry would end the same way).
        if now < quietUntil, queue.count > 0 {
            actions.append(.wake(at: quietUntil))
            return
        }
        refreshQueuedSync(at: time)
        takeBackLateRelays(at: now)
        switch queue.next(now: now) {
        case .send(let frame):
            let copy = queuedCopyKeys.removeValue(forKey: frame.id)
            if let copy { queuedCopies[copy.key] = nil }
            queuedSync[frame.id] = nil
            if frame.id == queuedHello?.id { queuedHello = nil }
            awaitAnswer(to: frame, relayed: copy.map { !$0.catchUp } ?? false, at: now)
            actions.append(.transmit(frame))
        case .wait(let until):
            actions.append(.wake(at: until))
        case .idle:
            break
        }
    }

    /// Drops the queued relays the router takes back as late planned relays whose neighbours
    /// copies have covered meanwhile (``MeshRouterConfiguration/topologyPlannedRelayLateCheckedBeforeSending``):
    /// held by the airtime budget, such a relay would otherwise go out once the budget allows,
    /// after the boxes around it have filled in.
    private mutating func takeBackLateRelays(at now: Duration) {
        let c = settings.router
        guard c.topologyPlan, c.topologyPlannedRelayLateAfter != nil, c.topologyPlannedRelayLateCheckedBeforeSending else { return }
        // Each key is taken back on its own: the order does not matter.
        let relays = queuedCopyKeys.values.filter { !$0.catchUp }.map(\.key)
        for key in relays where router.takeBackLateRelay(key, now: now) {
            if unqueue(key) { counters.relaysCancelled += 1 }
            relayable[key] = nil
            counters.lateRelaysTakenBack += 1
        }
    }

    /// After the last frame of a directed message that wants an acknowledgement, the next hop
    /// answers at once: keep the channel free for that answer. A frame of ours sent back to
    /// back with it made us deaf to the acknowledgement and, when the neighbour's turnaround was
    /// slow, the neighbour deaf to our frame — two messages queued together (a chat join and
    /// its first line) lost each other again at every retry, minutes for one chat line.
    ///
    /// When the message is ours and we know how far its destination is (``hops(to:at:)``), its
    /// acknowledgement is due by ``quickRetryDelay(lastFrame:hops:)``: if it has not come by
    /// then (plus ``Settings/quickRetryMargin``), the message is sent again once, instead of
    /// after the outbox's 30 s (``quickRetryDue(at:)``), unless that wait would be as long. A
    /// lost frame used to cost a bottle to the next box 30 s.
    ///
    /// `relayed`: the frame is the router's relay of a packet heard (not a retry or a catch-up
    /// copy), which may be the last piece this box passes on though not the message's last
    /// (``completesRelay(_:_:)``).
    private mutating func awaitAnswer(to frame: OutgoingFrame, relayed: Bool, at now: Duration) {
        guard let header = try? MeshFrameCodec.parse(frame.bytes).header, header.kind == .directed, header.wantsAck else { return }
        if header.origin == me, !piecesPassedOn.isEmpty { resentPieceWentOut(frame, header, at: now) }
        if let fragment = header.fragment, fragment.index + 1 < fragment.count, !(relayed && completesRelay(header, fragment)) {
            return  // the rest follows first
        }
        let answerBy = now + frame.airtime + settings.answerTurnaround + ackAirtime
        quietUntil = max(quietUntil, answerBy)
        counters.answerWaits += 1
        guard header.origin == me else {
            awaitLastHopAnswer(to: frame, header, at: now)
            return
        }
        let id = header.messageKey
        guard let destination = header.destination else { return }
        let firstHopWaits = !awaitFirstHop(id, to: destination, lastFrameEnds: now + frame.airtime) && firstHopMayWaitForTheWay(id, to: destination)
        var quickWaits = false
        if awaitingAck[id] != nil {
            if let hops = hops(to: destination, at: now) {
                armQuickRetry(id, lastFrame: frame.airtime, hops: hops, sentAt: now)
            } else if settings.retriesArmedOnceTheWayIsKnown {
                quickWaits = true  // nowhere heard yet: armed once it is
            } else {
                awaitingAck[id] = nil  // nowhere heard: the outbox's schedule decides
            }
        }
        if firstHopWaits || quickWaits {
            retriesAwaitingWay[id] = RetriesAwaitingWay(destination: destination, sentAt: now, lastFrame: frame.airtime,
                                                        firstHop: firstHopWaits, quick: quickWaits)
        }
    }

    /// The quick retry of our message `id`, whose last frame of `lastFrame` went on the air at
    /// `sentAt` to a box `hops` away: when its acknowledgement should have come, plus
    /// ``Settings/quickRetryMargin``, drawn longer (``jitteredRetry(_:)``); left to the outbox's
    /// schedule when that is ``Settings/quickRetryUnder`` or longer.
    private mutating func armQuickRetry(_ id: PacketKey, lastFrame: Duration, hops: Int, sentAt: Duration) {
        let wait = quickRetryDelay(lastFrame: lastFrame, hops: hops) + settings.quickRetryMargin
        if wait < settings.quickRetryUnder {
            quickRetryAt[id] = sentAt + jitteredRetry(wait)
        } else {
            awaitingAck[id] = nil  // too far: the outbox's schedule decides
        }
    }

    /// Our directed message whose last frame went on the air while this box knew no way to its
    /// destination (``Settings/retriesArmedOnceTheWayIsKnown``): which of its retries wait for
    /// the way, and the sending they are timed from.
    struct RetriesAwaitingWay: Sendable {
        var destination: NodeID
        /// When its last frame went on the air, and that frame's airtime.
        var sentAt: Duration
        var lastFrame: Duration
        /// The first-hop retry waits for a neighbour whose hello lists the destination; the
        /// quick retry for the destination's distance.
        var firstHop: Bool
        var quick: Bool
    }

    /// Arms the retries of our messages sent while the way to their destination was unknown, as
    /// soon as it is known (``Settings/retriesArmedOnceTheWayIsKnown``): the first-hop retry once
    /// a neighbour's hello lists the destination, the quick retry once its distance is known
    /// (a neighbour, or its frames heard) — each timed from the sending, so one already late is
    /// due at once. A message that was answered meanwhile, or whose sending is
    /// ``Settings/quickRetryUnder`` old, is left to the outbox.
    mutating func armRetriesOnceTheWayIsKnown(at t: Duration) {
        for (id, waiting) in retriesAwaitingWay.sorted(by: { $0.key < $1.key }) {
            var waiting = waiting
            let expired = t - waiting.sentAt >= settings.quickRetryUnder
            if waiting.firstHop, !expired, piecesPassedOn[id].map({ $0.heard.isEmpty && $0.firstHopDue == nil }) == true {
                if awaitFirstHop(id, to: waiting.destination, lastFrameEnds: waiting.sentAt + waiting.lastFrame) {
                    waiting.firstHop = false
                    counters.retriesArmedLate += 1
                }
            } else {
                waiting.firstHop = false
            }
            if waiting.quick, awaitingAck[id] != nil, quickRetryAt[id] == nil {
                if expired {
                    awaitingAck[id] = nil  // the outbox's schedule decides
                    waiting.quick = false
                } else if let hops = hops(to: waiting.destination, at: t) {
                    armQuickRetry(id, lastFrame: waiting.lastFrame, hops: hops, sentAt: waiting.sentAt)
                    waiting.quick = false
                    if quickRetryAt[id] != nil { counters.retriesArmedLate += 1 }
                }
            } else {
                waiting.quick = false
            }
            retriesAwaitingWay[id] = waiting.firstHop || waiting.quick ? waiting : nil
        }
    }

    /// How long an acknowledgement lasts on the air.
    var ackAirtime: Duration {
        let ackBytes = MeshFrameCodec.overheadBytes(hasDestination: true, fragmented: false, originTagged: false) + 4
        return LoRaAirtime.duration(payloadBytes: ackBytes, modulation: settings.modulation)
    }

    /// A neighbour's directed frame just heard, at `t` (its end), wants an acknowledgement from
    /// a box this one does not hear: our own frames wait until that answer is over
    /// (``Settings/quietForHiddenAnswers``, ``answerHeldUntil``): the turnaround, the ack's
    /// airtime, the answerer's quiet back-off (up to 4 slots), then 1…4 slots drawn at random,
    /// so that two boxes held by the same answer do not start together. The driver's listen
    /// before talk holds them, as it draws the quiet back-off — for the same frames: a relay of
    /// another box's data keeps its slot (``QuietBackOff``). Only the last piece is answered; the
    /// answerer is the destination when the transmitter's hello lists it (any neighbour with
    /// the frame's short relayer id: when two share it, the wait is kept for both).
    mutating func keepQuietForHiddenAnswer(_ header: MeshHeader, at t: Duration) {
        guard settings.quietForHiddenAnswers, header.kind == .directed, header.wantsAck,
              let destination = header.destination, destination != me,
              header.fragment.map({ Int($0.index) + 1 == Int($0.count) }) ?? true else { return }
        let neighbours = router.neighbours
        guard !neighbours.contains(where: { $0.id == destination }),
              neighbours.contains(where: { $0.id.shortID == header.relayer && $0.neighbours[destination] != nil }) else { return }
        let slots = QuietBackOff.windowSlots + retryRng.int(in: 1...QuietBackOff.windowSlots)
        answerHeldUntil = max(answerHeldUntil, t + settings.answerTurnaround + ackAirtime + settings.router.slot * slots)
        counters.hiddenAnswerWaits += 1
    }

    /// `wait` plus a random share of it, up to ``Settings/retryJitter``: two boxes hidden from
    /// each other whose frames collided at a relay they share would otherwise send again at the
    /// same instants and collide again.
    mutating func jitteredRetry(_ wait: Duration) -> Duration {
        let share = min(max(settings.retryJitter, 0), 1)
        guard share > 0, wait > .zero else { return wait }
        return wait + wait * (share * retryRng.unit())
    }

    /// From our last frame going on the air until the acknowledgement of a message to a box
    /// `hops` away should be here: our frame, the destination's turnaround and its ack; and for
    /// each relay on the way there and back the longest relay delay (the router's flooding
    /// fallback, 288 slots: 22 s at LongFast, 3.4 s at SF7), the turnaround and the frame again.
    /// With a last frame of 233 bytes and the default margin the retry waits 1.4 s at SF7 and
    /// 5.6 s at LongFast for a neighbour; 9.4 s at SF7 for a box two hops away, and 51 s at
    /// LongFast — past the outbox's 30 s, so none there.
    func quickRetryDelay(lastFrame airtime: Duration, hops: Int) -> Duration {
        let ack = ackAirtime
        let c = settings.router
        let longestRelayDelay = c.slot * max(3 * c.rankCap * c.slotsPerRank, (c.rankCap - 1) * c.slotsPerRank + max(c.jitterSlots, c.busyJitterSlots ?? 0, c.leaderJitterSlots ?? 0, c.busyLeaderJitterSlots ?? 0))
        let relays = max(0, hops - 1)
        let out = (longestRelayDelay + settings.answerTurnaround + airtime) * relays
        let back = (longestRelayDelay + settings.answerTurnaround + ack) * relays
        return airtime + settings.answerTurnaround + ack + out + back
    }

    /// Our directed messages whose acknowledgement did not come when it should have: each is
    /// sent again (counted as `quickRetries`; not as an outbox attempt,
    /// ``Settings/quickRetryKeepsSchedule``), up to ``Settings/quickRetryRounds`` times — the
    /// rounds after the first only on a quiet channel (else `quickRetriesBusy`, and the outbox
    /// decides) — earliest first (in key order at the same instant, so a simulated run does
    /// not depend on hashing).
    mutating func quickRetryDue(at now: MeshNodeTime) {
        let t = now.monotonic
        let due = quickRetryAt.filter { $0.value <= t }.sorted { ($0.value, $0.key) < ($1.value, $1.key) }
        for (id, _) in due {
            quickRetryAt[id] = nil
            guard let (entry, _) = awaitingAck.removeValue(forKey: id) else { continue }
            let round = (quickRounds[id] ?? 0) + 1
            let busy = round > 1 && crowdedForRetries(at: t)
            // Its last frame going on the air arms the next round (``awaitAnswer``).
            Self.count(round: round, of: id, last: busy || round >= settings.quickRetryRounds, in: &quickRounds, done: &quickRetried)
            if busy {
                counters.quickRetriesBusy += 1
                continue
            }
            counters.quickRetries += 1
            log(.info, "mesh message sent again: no acknowledgement in time", ["id": "\(id)", "round": "\(round)"])
            sendOutgoing(entry, attempt: !settings.quickRetryKeepsSchedule, at: now)
        }
    }

    /// Whether `header`, a piece of another box's message that is not its last, is the last
    /// this box passes on: every other piece went on the air from here already (relayed, and
    /// no longer queued: this one came late — the origin sent it again because this box
    /// lacked it, ``Settings/missingPiecesResent``), so the destination may answer now.
    private func completesRelay(_ header: MeshHeader, _ fragment: MeshHeader.Fragment) -> Bool {
        guard settings.missingPiecesResent, header.origin != me else { return false }
        let id = header.messageKey
        return (0..<Int(fragment.count)).allSatisfy {
            $0 == Int(fragment.index) || (relayedDirected[id.piece($0)] != nil && queuedCopies[id.piece($0)] == nil)
        }
    }

    /// A directed message of another box went out from here (relayed, or sent back as held)
    /// to a destination we hear: if no acknowledgement from it is heard by the time one would
    /// have come from a neighbour, its frames go once more (``Settings/lastHopRetry``).
    private mutating func awaitLastHopAnswer(to frame: OutgoingFrame, _ header: MeshHeader, at now: Duration) {
        guard settings.lastHopRetry, let destination = header.destination, destination != me,
              hops(to: destination, at: now) == 1 else { return }
        let id = header.messageKey
        guard lastHopRetryAt[id] == nil, !lastHopRetried.contains(id), !acksHeard.contains(id) else { return }
        let pieces = Int(header.fragment?.count ?? 1), index = Int(header.fragment?.index ?? 0)
        // A piece this box never got: its frames again could not complete the message (the
        // origin sends the piece again, ``Settings/missingPiecesResent``).
        guard (0..<pieces).allSatisfy({ $0 == index || relayable[id.piece($0)] != nil }) else { return }
        let wait = quickRetryDelay(lastFrame: frame.airtime, hops: 1) + settings.quickRetryMargin
        lastHopRetryAt[id] = (now + jitteredRetry(wait), destination, frame.bytes, index, pieces)
    }

    /// Relayed directed messages whose destination's acknowledgement was not heard in time:
    /// their frames go once more (counted as `lastHopRetries`; up to
    /// ``Settings/lastHopRetryRounds`` times, each waiting for the answer again), earliest first — every piece in
    /// order, the one this box passed on last as it went, the others as it would relay them
    /// from what it heard. The destination delivers a piece it lacked, or acknowledges again a
    /// message it had.
    mutating func lastHopRetryDue(at now: MeshNodeTime) {
        let t = now.monotonic
        let due = lastHopRetryAt.filter { $0.value.due <= t }.sorted { ($0.value.due, $0.key) < ($1.value.due, $1.key) }
        for (id, pending) in due {
            lastHopRetryAt[id] = nil
            let round = (lastHopRounds[id] ?? 0) + 1
            let busy = crowdedForRetries(at: t)
            // Its last frame going on the air arms the next round (``awaitLastHopAnswer``).
            Self.count(round: round, of: id, last: busy || round >= settings.lastHopRetryRounds, in: &lastHopRounds, done: &lastHopRetried)
            if busy {
                // Frames lost on a crowded channel are lost to collisions: another frame adds to them.
                counters.lastHopRetriesBusy += 1
                continue
            }
            counters.lastHopRetries += 1
            log(.info, "mesh relay sent again: no acknowledgement from its destination", ["id": "\(id)", "to": "\(pending.destination)",
                                                                                         "round": "\(round)"])
            for index in 0..<pending.frames {
                if index == pending.lastIndex {
                    enqueue(pending.lastFrame, priority: .normal, counter: \.sentRelays)
                    continue
                }
                guard let heard = relayable[id.piece(index)], let frame = try? MeshFrameCodec.relay(heard.frame, by: me) else { continue }
                enqueue(frame, priority: .normal, counter: \.sentRelays)
            }
        }
    }

    /// Whether the channel was busier than ``Settings/backgroundBusyThreshold`` over the last
    /// minute, when ``Settings/lastHopRetryOnlyWhenQuiet`` holds retries back: frames lost there
    /// are lost to collisions, and another frame adds to them.
    func crowdedForRetries(at t: Duration) -> Bool {
        settings.lastHopRetryOnlyWhenQuiet && queue.backgroundBusyFraction(now: t) > settings.backgroundBusyThreshold
    }

    /// Counts retry `round` of `id`: kept in `rounds` while another may follow, else (`last`) `id`
    /// joins `done` (both bounded to about a thousand: those dropped had no next round).
    static func count(round: Int, of id: PacketKey, last: Bool, in rounds: inout [PacketKey: Int], done: inout OrderedKeys) {
        if !last {
            if rounds.count >= 1_024, rounds[id] == nil { rounds.removeAll() }
            rounds[id] = round
        } else {
            rounds[id] = nil
            done.insert(id)
            if done.count > 1_024 { done.removeFirst() }
        }
    }

    /// Retries of directed messages whose random delay is over go to the radio
    /// (``Settings/retryRelaysJittered``).
    mutating func passRetriesOn(at t: Duration) {
        guard retryRelaysDue.contains(where: { $0.at <= t }) else { return }
        for relay in retryRelaysDue where relay.at <= t { enqueue(relay.frame, priority: .normal, counter: \.sentRelays) }
        retryRelaysDue.removeAll { $0.at <= t }
    }

    /// An acknowledgement heard for `id`, a message of another box, from its destination: its
    /// last-hop retry is not needed.
    mutating func heardAck(for id: PacketKey, from destination: NodeID) {
        if lastHopRetryAt[id]?.destination == destination { lastHopRetryAt[id] = nil }
        lastHopRounds[id] = nil
        acksHeard.insert(id)
        if acksHeard.count > 1_024 { acksHeard.removeFirst() }
    }

    /// A directed message of ours was acknowledged: no quick retry.
    mutating func acknowledged(_ id: PacketKey) {
        awaitingAck[id] = nil
        quickRetryAt[id] = nil
        quickRounds[id] = nil
        retriesAwaitingWay[id] = nil
        if piecesPassedOn[id] != nil { stopListeningForPieces(id) }
    }
}
