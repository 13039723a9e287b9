/// Store-and-forward catch-up between neighbours: digests, requests and the held frames that
/// answer them, each answer after a random delay, requests repeated until answered.
///
/// The exchange is single frames without acknowledgement, between boxes that often cannot hear
/// each other (the neighbours on either side of a box). Four rules keep it from losing what it
/// was for (review finding 8):
/// - a box that starts sends its digest after its first hello, so neighbours that still count
///   it as a neighbour (it was off for less than two hello periods) answer at once;
/// - every answer — the frames a digest or request lacks, the request for what a digest lists,
///   the digest for a neighbour heard again — waits a random time within
///   ``Settings/answerWindowFrames`` longest frames, so two neighbours answering the same digest
///   rarely collide at its sender; a copy of the same packet heard meanwhile takes ours back
///   (another box answered);
/// - a packet asked for and not heard is asked for again, the wait doubling each time
///   (``SyncRequestTracker``); the start digest, when its answers brought something new, is
///   sent again once they had time to come (an answer lost on the air is sent again: the box
///   cannot ask for what it does not know exists), at most ``Settings/digestFollowUps`` times
///   in a row.
extension MeshNodeMachine {
    /// A catch-up answer waiting out its random delay.
    struct DeferredAnswer: Sendable {
        enum Kind: Sendable {
            /// Our digest (to a neighbour heard again).
            case digest
            /// Held frames a neighbour lacks.
            case resend([PacketKey])
            /// Held frames a neighbour asked for again: not taken back by a copy heard meanwhile.
            case resendAskedAgain([PacketKey])
            /// A request for packets a neighbour's digest lists.
            case request([PacketKey])
            /// The start digest's follow-up (its number in a row).
            case followUp(Int)
        }

        var at: Duration
        var kind: Kind
    }

    /// A digest or request of ours waiting for the radio, and ``heldGeneration`` when it was
    /// sealed.
    struct QueuedSync: Sendable {
        enum Kind: Sendable {
            /// Paced repair's compact digest.
            case compact
            /// The full digest.
            case full
            /// A request for these packets.
            case request([PacketKey])
        }

        var kind: Kind
        var generation: Int
    }

    /// Digests and requests wait for the radio at background priority, which under load means
    /// while the channel is busy: in the simulator at 30 boxes a tenth of the digests waited
    /// 30 s to 2 minutes, and left out packets the box had got meanwhile. Its neighbours sent
    /// those back: of the catch-up copies, two thirds went on air when no box in range lacked
    /// them (docs/mesh-simulation.md, "Digests and requests go out fresh"). So before each frame
    /// goes on air every queued digest or request sealed before we last held something new is
    /// sealed again, under a new packet id (a sealed frame's nonce is its origin and packet id),
    /// and keeps its place; a request whose packets all came is taken off the queue.
    mutating func refreshQueuedSync(at now: MeshNodeTime) {
        // Called whenever the radio is free: nothing to do unless we held something new since
        // one was sealed (entries of frames already gone are dropped when they go on air).
        guard queuedSync.values.contains(where: { $0.generation != heldGeneration }) else { return }
        for (id, queued) in queuedSync.sorted(by: { $0.key < $1.key }) {
            guard queue.contains(id: id) else {
                queuedSync[id] = nil
                continue
            }
            guard queued.generation != heldGeneration else { continue }
            var kind = queued.kind
            let kindOfFrame: FrameKind
            let payload: [UInt8]
            switch queued.kind {
            case .compact:
                kindOfFrame = .digest
                payload = compactDigestPayload(at: now.monotonic)
            case .full:
                kindOfFrame = .digest
                payload = fullDigest().encoded()
            case .request(let keys):
                let missing = notHeld(keys)
                for key in Set(keys).subtracting(missing) { requests.heard(key) }
                guard missing != keys else {
                    queuedSync[id]?.generation = heldGeneration
                    continue
                }
                guard !missing.isEmpty else {
                    queue.remove(id: id)
                    queuedSync[id] = nil
                    counters.requestsWithdrawn += 1
                    continue
                }
                kind = .request(missing)
                kindOfFrame = .request
                payload = SyncRequest(keys: missing).encoded()
            }
            guard let sealed = sealControl(kindOfFrame, payload: payload, at: now),
                  queue.replace(id: id, bytes: sealed.frame, modulation: settings.modulation) else { continue }
            counters.syncRefreshed += 1
            queuedSync[id] = QueuedSync(kind: kind, generation: heldGeneration)
        }
    }

    /// The longest frame's time on air.
    var longestFrameAirtime: Duration {
        LoRaAirtime.duration(payloadBytes: settings.maximumFrameBytes, modulation: settings.modulation)
    }

    /// The longest answer delay: `answerWindowFrames` times the longest frame's airtime.
    var answerWindow: Duration {
        longestFrameAirtime * max(0, settings.answerWindowFrames)
    }

    /// A random answer delay, uniform in 0…``answerWindow`` (microseconds).
    mutating func answerDelay() -> Duration {
        .microseconds(rng.int(in: 0...Int(answerWindow / .microseconds(1))))
    }

    /// How long a request of `keys` packets waits for its answers before it is repeated: the
    /// answerers' random delay, then every answer and the request itself at the longest frame's
    /// airtime. Doubled for every further attempt.
    func requestTimeout(keys: Int) -> Duration {
        answerWindow + longestFrameAirtime * (keys + 2)
    }

    /// Our full digest of what we hold. When more origins are held than one digest describes
    /// (``SyncDigest/maxRanges``), those described start at a random one
    /// (``Settings/digestOriginsRotate``), so every origin's packets are offered in time.
    mutating func fullDigest() -> SyncDigest {
        let held = heldSet()
        guard settings.digestOriginsRotate else { return SyncDigest(held: held) }
        let origins = Set(held.map(\.origin)).count
        guard origins > SyncDigest.maxRanges else { return SyncDigest(held: held) }
        return SyncDigest(held: held, rotation: rng.int(in: 0...(origins - 1)))
    }

    mutating func sendDigest(at now: MeshNodeTime) {
        let digest = fullDigest()
        if let id = sendControl(.digest, payload: digest.encoded(), at: now) {
            queuedSync[id] = QueuedSync(kind: .full, generation: heldGeneration)
            lastFullDigestQueuedAt = now.monotonic
        }
    }

    /// Whether a neighbour that just came into our table (its `hello`) hears a full digest of
    /// ours without one of its own (``Settings/newNeighbourDigestsShared``): our start digest
    /// is still to come (our first hello waits out ``MeshRouterConfiguration/firstHelloSpread``),
    /// one waits out its delay or its turn on the radio, or the hello lists us and our last
    /// full digest was queued after our last hello (the neighbour heard a hello of ours since
    /// it started, so it was listening when the digest went).
    func fullDigestShared(with hello: HelloPayload) -> Bool {
        guard settings.newNeighbourDigestsShared else { return false }
        if !announced { return true }
        let waiting = deferred.contains { answer in
            switch answer.kind {
            case .digest, .followUp: true
            case .resend, .resendAskedAgain, .request: false
            }
        }
        if waiting || queuedSync.values.contains(where: { if case .full = $0.kind { true } else { false } }) { return true }
        guard hello.neighbours.contains(where: { $0.id == me }),
              let digest = lastFullDigestQueuedAt, let ours = lastHelloQueuedAt else { return false }
        return digest >= ours
    }

    /// Sends the digest of a box that just started (`followUps` 0; or one it sends soon after:
    /// ``Settings/digestsAfterStartFollowedUp``) or its follow-up, and counts
    /// what its answers bring until they had time to come (``requestTimeout(keys:)`` for a few
    /// frames). Only this digest is followed up: a box that was off knows it missed packets,
    /// while in a mesh that stays up the packets new to a box during a digest's answers are
    /// mostly the ordinary flood, and following those up cost 45 % more frames for 3 points of
    /// reach in the simulator (docs/mesh-simulation.md).
    mutating func announce(at now: MeshNodeTime, followUps: Int = 0) {
        sendDigest(at: now)
        digestWatch = (now.monotonic + requestTimeout(keys: 2), 0, followUps)
    }

    /// A broadcast or directed packet new to this box: an answer to our digest, when one is out.
    mutating func noteNewPacket(at t: Duration) {
        guard var watch = digestWatch, t <= watch.until else { return }
        watch.newPackets += 1
        digestWatch = watch
    }

    /// Schedules `kind` after a random answer delay.
    mutating func deferAnswer(_ kind: DeferredAnswer.Kind, at now: MeshNodeTime) {
        let at = now.monotonic + answerDelay()
        if case .request(let keys) = kind {
            // Counted as asked from when it goes out: a digest heard meanwhile does not ask again.
            requests.asked(keys, now: at, timeout: requestTimeout(keys: keys.count))
        }
        deferred.append(DeferredAnswer(at: at, kind: kind))
    }

    /// Takes `key` out of the catch-up copies still waiting out their delay; `true` if it was
    /// there (another box sent the packet first: ours is redundant).
    mutating func dropDeferredResend(_ key: PacketKey) -> Bool {
        var dropped = false
        for index in deferred.indices {
            guard case .resend(var keys) = deferred[index].kind, let position = keys.firstIndex(of: key) else { continue }
            keys.remove(at: position)
            deferred[index].kind = .resend(keys)
            dropped = true
        }
        return dropped
    }

    /// Whether a copy of `key` of ours waits for the radio or out its answer delay.
    func answerWaits(_ key: PacketKey) -> Bool {
        queuedCopies[key] != nil || deferred.contains { answer in
            switch answer.kind {
            case .resend(let keys), .resendAskedAgain(let keys): keys.contains(key)
            case .digest, .request, .followUp: false
            }
        }
    }

    /// The packets of `keys` this box does not hold.
    func notHeld(_ keys: [PacketKey]) -> [PacketKey] {
        let held = Set(((try? memory.heldFrames(for: keys)) ?? []).map(\.key))
        return keys.filter { !held.contains($0) }
    }

    /// Answers whose delay ran out, then requests whose answer did not come.
    mutating func catchUpDue(at now: MeshNodeTime) {
        let t = now.monotonic
        let ready = deferred.filter { $0.at <= t }
        deferred.removeAll { $0.at <= t }
        for answer in ready {
            switch answer.kind {
            case .digest:
                if settings.digestsAfterStartFollowedUp, digestWatch == nil,
                   let started = announcedAt, t - started < settings.router.helloPeriod * 2 {
                    // Still catching up after the start: followed up as the start digest is.
                    announce(at: now)
                } else {
                    sendDigest(at: now)
                }
            case .resend(let keys):
                resend(keys)
            case .resendAskedAgain(let keys):
                resend(keys, takenBackByCopies: false)
            case .request(let keys):
                let missing = notHeld(keys)
                for key in Set(keys).subtracting(missing) { requests.heard(key) }
                if !missing.isEmpty { sendRequest(missing, at: now) }
            case .followUp(let number):
                announce(at: now, followUps: number)
            }
        }
        if let watch = digestWatch, t >= watch.until {
            digestWatch = nil
            if watch.newPackets > 0, watch.followUps < settings.digestFollowUps {
                counters.digestFollowUps += 1
                if settings.digestRepeatsDelayed {
                    // After a random delay too: boxes that started together would send theirs
                    // together (``Settings/digestRepeatsDelayed``).
                    deferAnswer(.followUp(watch.followUps + 1), at: now)
                } else {
                    announce(at: now, followUps: watch.followUps + 1)
                }
            }
        }
        let due = requests.due(now: t)
        let again = notHeld(due)
        for key in Set(due).subtracting(again) { requests.heard(key) }
        guard !again.isEmpty else { return }
        let keys = Array(again.prefix(SyncRequest.maxKeys))
        requests.asked(keys, now: t, timeout: requestTimeout(keys: keys.count))
        counters.requestsRepeated += 1
        sendRequest(keys, at: now)
    }

    /// Queues a request for `keys` (refreshed while it waits: ``refreshQueuedSync(at:)``).
    mutating func sendRequest(_ keys: [PacketKey], at now: MeshNodeTime) {
        if let id = sendControl(.request, payload: SyncRequest(keys: keys).encoded(), at: now) {
            queuedSync[id] = QueuedSync(kind: .request(keys), generation: heldGeneration)
        }
    }

    /// The earliest deferred answer or request repeat.
    var catchUpDeadline: Duration? {
        [deferred.map(\.at).min(), requests.nextDeadline, digestWatch?.until].compactMap { $0 }.min()
    }
}
