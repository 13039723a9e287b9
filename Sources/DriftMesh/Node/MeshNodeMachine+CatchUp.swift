/// Store-and-forward catch-up between neighbours: digests, requests and the held frames that
/// answer them, each answer after a random delay, requests repeated until answered.
///
/// The exchange is single frames without acknowledgement, between boxes that often cannot hear
/// each other (the neighbours on either side of a box). Three rules keep it from losing what it
/// was for (review finding 8):
/// - a box that starts sends its digest after its first hello, so neighbours that still count
///   it as a neighbour (it was off for less than two hello periods) answer at once;
/// - every answer — the frames a digest or request lacks, the request for what a digest lists,
///   the digest for a neighbour heard again — waits a random 0…``Settings/answerJitterSlots``
///   router slots, so two neighbours answering the same digest rarely collide at its sender; a
///   copy of the same packet heard meanwhile takes ours back (another box answered);
/// - a packet asked for and not heard is asked for again, the wait doubling each time
///   (``SyncRequestTracker``).
extension MeshNodeMachine {
    /// A catch-up answer waiting out its random delay.
    struct DeferredAnswer: Sendable {
        enum Kind: Sendable {
            /// Our digest (to a neighbour heard again).
            case digest
            /// Held frames a neighbour lacks.
            case resend([PacketKey])
            /// A request for packets a neighbour's digest lists.
            case request([PacketKey])
        }

        var at: Duration
        var kind: Kind
    }

    /// A random answer delay: 0…`answerJitterSlots` router slots.
    mutating func answerDelay() -> Duration {
        settings.router.slot * rng.int(in: 0...max(0, settings.answerJitterSlots))
    }

    /// How long a request of `keys` packets waits for its answers before it is repeated: the
    /// answerers' random delay, then every answer and the request itself at the longest frame's
    /// airtime. Doubled for every further attempt.
    func requestTimeout(keys: Int) -> Duration {
        let frame = LoRaAirtime.duration(payloadBytes: settings.maximumFrameBytes, modulation: settings.modulation)
        return settings.router.slot * max(0, settings.answerJitterSlots) + frame * (keys + 2)
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
                sendDigest(at: now)
            case .resend(let keys):
                resend(keys)
            case .request(let keys):
                let missing = notHeld(keys)
                for key in Set(keys).subtracting(missing) { requests.heard(key) }
                if !missing.isEmpty { sendControl(.request, payload: SyncRequest(keys: missing).encoded(), at: now) }
            }
        }
        let due = requests.due(now: t)
        let again = notHeld(due)
        for key in Set(due).subtracting(again) { requests.heard(key) }
        guard !again.isEmpty else { return }
        let keys = Array(again.prefix(SyncRequest.maxKeys))
        requests.asked(keys, now: t, timeout: requestTimeout(keys: keys.count))
        counters.requestsRepeated += 1
        sendControl(.request, payload: SyncRequest(keys: keys).encoded(), at: now)
    }

    /// The earliest deferred answer or request repeat.
    var catchUpDeadline: Duration? {
        let answers = deferred.map(\.at).min()
        guard let repeatAt = requests.nextDeadline else { return answers }
        return answers.map { min($0, repeatAt) } ?? repeatAt
    }
}
