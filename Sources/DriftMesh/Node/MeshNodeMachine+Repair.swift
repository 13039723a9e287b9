import Foundation

/// Paced repair while the mesh stays up (issue 19): catch-up (``MeshNodeMachine``'s digests
/// when a box starts or meets a neighbour again) never asks for a packet a box missed in a mesh
/// whose neighbours stay put. With ``Settings/pacedRepair`` a Trickle timer sends a
/// ``CompactDigest`` of the packets the box got lately; a neighbour that holds one of them
/// the digest does not list sends it back (a catch-up answer: after a random delay, taken back
/// when another box sends it first), and a box that hears a digest listing something it lacks
/// resets its timer so its own digest soon asks for it. A packet got this way is relayed like
/// any other, so it crosses a patch of boxes that all missed it in one pass. Every box answers
/// compact digests, paced repair on or not.
extension MeshNodeMachine {
    /// How long packets are remembered as got lately.
    var recentWindow: Duration {
        settings.pacedRepair?.window ?? .seconds(30 * 60)
    }

    /// Notes a packet this box got now (heard for the first time, or its own); `listed` when it
    /// is held, so its digest may list it.
    mutating func noteRecent(_ key: PacketKey, listed: Bool, at t: Duration, remembered: Bool = false) {
        guard recentPackets[key] == nil else { return }
        recentPackets[key] = (t, listed, remembered)
    }

    /// Most held frames taken back into `recentPackets` when the machine starts.
    static var rememberedRecentLimit: Int { 1_000 }

    /// A box that starts again (the daemon restarted) still knows what it got lately: the held
    /// frames received within the window, at the instants they came by the wall clock (one
    /// stamped later than now — the clock was set back — counts as got now). Without this its
    /// compact digests listed nothing it got before the start, and every neighbour sent all of
    /// it back. They are listed, never sent to a neighbour whose digest lacks them: a box that
    /// boots with its clock behind (no RTC, the time saved at shutdown) would take frames got
    /// hours ago for recent ones and push them to every neighbour.
    mutating func rememberRecent(at now: MeshNodeTime) {
        recentRemembered = true
        let receipts: [MeshHeldReceipt]
        do {
            receipts = try memory.heldReceipts(since: now.wall.addingTimeInterval(-RetrySchedule.seconds(recentWindow)),
                                               limit: Self.rememberedRecentLimit)
        } catch {
            log(.error, "mesh recent packets not read", ["error": "\(error)"])
            return
        }
        for receipt in receipts {
            let age = max(0, now.wall.timeIntervalSince(receipt.receivedAt))
            noteRecent(receipt.key, listed: true, at: now.monotonic - .milliseconds(Int64((age * 1_000).rounded())), remembered: true)
        }
    }

    /// Whether `neighbour`'s compact digest was heard within the last two hello periods while
    /// this box runs paced repair: the two repair each other, whatever became of its hellos.
    func inRepair(_ neighbour: NodeID, at t: Duration) -> Bool {
        guard let repair = settings.pacedRepair, !repair.digestsNeighboursInRepair,
              let heard = compactDigestHeardAt[neighbour] else { return false }
        return t - heard < settings.router.helloPeriod * 2
    }

    /// Whether the full digest's repeat is left out: every neighbour it was for (heard again at
    /// the instant given) has sent a compact digest since, so it is in paced repair with us
    /// (``PacedRepair/digestRepeatsForNeighboursInRepair``).
    func repeatLeftToRepair(for neighbours: [NodeID: Duration]) -> Bool {
        guard let repair = settings.pacedRepair, !repair.digestRepeatsForNeighboursInRepair, !neighbours.isEmpty else { return false }
        return neighbours.allSatisfy { id, since in compactDigestHeardAt[id].map { $0 > since } ?? false }
    }

    /// Forgets packets got longer ago than the window.
    mutating func forgetOldRecent(at t: Duration) {
        recentPackets = recentPackets.filter { t - $0.value.at <= recentWindow }
        repairAnswers.forget { recentPackets[$0] != nil }
        answersUnconfirmed = answersUnconfirmed.compactMapValues { keys in
            let kept = keys.filter { recentPackets[$0] != nil }
            return kept.isEmpty ? nil : kept
        }
    }

    /// Of the packets a neighbour's compact digest lacks, those this box sends it. None when its
    /// last hello says it does not hear this box (its list is complete and leaves us out): a
    /// box at the edge that hears a strong neighbour it cannot reach kept asking, and the
    /// neighbour kept answering — in the simulator up to 18 packets at a time, every minute or
    /// two, for the whole run, 5 % of its airtime (issue 19). A list of nobody is a box that just
    /// started (``Settings/repairAnswersBoxesJustStarted``). Otherwise each packet at most
    /// ``Settings/repairAnswersPerNeighbour`` times to the same neighbour: one that still lacks
    /// it after that is likely not hearing this box, and others answer too. Then once more each
    /// time ``Settings/repairAnswerRenewal`` has passed since the last answer, while its hellos
    /// still list this box: it may have been out of reach for a while, and when no other box
    /// holds the packet this is the only way it gets there.
    mutating func answerable(_ missing: [PacketKey], to requester: NodeID, at t: Duration) -> [PacketKey] {
        guard !missing.isEmpty else { return [] }
        if router.isDeaf(requester),
           !settings.repairAnswersBoxesJustStarted || router.neighbour(requester)?.neighbours.isEmpty == false {
            counters.repairAnswersOneWay += missing.count
            return []
        }
        let limit = settings.repairAnswersPerNeighbour
        var answer: [PacketKey] = []
        for key in missing {
            switch repairAnswers.take(key, to: requester, limit: limit, at: t, renewal: settings.repairAnswerRenewal) {
            case .answer:
                answer.append(key)
            case .renewed:
                counters.repairAnswersRenewed += 1
                answer.append(key)
            case .capped:
                counters.repairAnswersCapped += 1
            }
        }
        return answer
    }

    /// Starts the repair timer at the first timer input; sends our compact digest when it
    /// fires unsuppressed, unless the box has been alone for a while (``PacedRepair/digestsWhileAlone``).
    mutating func repairDue(at now: MeshNodeTime) {
        guard let repair = settings.pacedRepair else { return }
        let t = now.monotonic
        var timer = repairTimer ?? TrickleTimer(minimumInterval: repair.minimumInterval, doublings: repair.doublings,
                                                redundancy: repair.redundancy, now: t, seed: rng.next())
        var forUnheard = false
        let start = timer.intervalStart
        let send = timer.due(now: t, longest: repairLongest(timer, repair, at: t)) { senders in
            guard repair.suppressionCoversNeighbours, !self.router.everyNeighbourHears(oneOf: senders, now: t) else { return true }
            forUnheard = true
            return false
        }
        if timer.intervalStart != start, timer.interval > timer.maximumInterval { counters.repairIntervalsLonger += 1 }
        if router.liveNeighbourCount(now: t) > 0 {
            aloneSince = nil
        } else if aloneSince == nil {
            aloneSince = t
        }
        if send {
            if repairTimerSleeps(at: t) {
                counters.digestsAlone += 1
            } else {
                if forUnheard { counters.digestsForUnheardNeighbours += 1 }
                sendCompactDigest(at: now)
            }
        }
        repairTimer = timer
    }

    /// The longest repair interval for the intervals that start now: twice the timer's Imax
    /// while this box has sent more than ``PacedRepair/longerAboveBudgetShare`` of its airtime
    /// budget's limit over the budget's window; otherwise the timer's own.
    func repairLongest(_ timer: TrickleTimer, _ repair: PacedRepair, at t: Duration) -> Duration? {
        guard let share = repair.longerAboveBudgetShare, queue.budget.usedFraction(now: t) > share else { return nil }
        return timer.maximumInterval * 2
    }

    /// Whether the box has counted no live neighbour for as long as it remembers one
    /// (``PacedRepair/digestsWhileAlone``): then a digest the repair timer fires is left out, and
    /// the timer lets the box sleep through its deadlines — a lone box woke twice per 4-minute
    /// interval for nothing (docs/performance.md, "Idle"). The intervals are caught up at the
    /// next wake: an interval whose digest time passed meanwhile sends it then, if a neighbour
    /// has come.
    func repairTimerSleeps(at t: Duration) -> Bool {
        guard let repair = settings.pacedRepair, !repair.digestsWhileAlone, let aloneSince else { return false }
        return t - aloneSince >= neighbourMemory && router.liveNeighbourCount(now: t) == 0
    }

    /// The payload of our compact digest: the held packets got within the window, newest
    /// first. When more than ``CompactDigest/maxEntries`` are, and
    /// ``Settings/compactDigestWindowShrinks``, those of the last whole minutes that fit, under
    /// that shorter window, so the digest stays complete: an incomplete one tells the neighbours
    /// nothing of what this box lacks, and under load that lasts a box passes 88 packets in
    /// half an hour within minutes (docs/mesh-simulation.md, "Sustained load").
    mutating func compactDigestPayload(at t: Duration) -> [UInt8] {
        forgetOldRecent(at: t)
        let recent = recentPackets.filter(\.value.listed).sorted { ($0.value.at, $0.key) > ($1.value.at, $1.key) }
        var minutes = Int(recentWindow / .seconds(60))
        var listed = recent
        if recent.count > CompactDigest.maxEntries, settings.compactDigestWindowShrinks {
            // Every packet younger than the first that does not fit, in whole minutes.
            let fitting = Int((t - recent[CompactDigest.maxEntries].value.at) / .seconds(60))
            if fitting > 0 {
                minutes = fitting
                listed = recent.filter { t - $0.value.at < .seconds(60 * fitting) }
            }
        }
        let coding = compactDigestCoding(at: t)
        var salt = UInt16(truncatingIfNeeded: rng.next())
        if coding != settings.compactDigestCoding { salt = CompactDigest.fallbackSalt(salt) }
        return CompactDigest(recent: listed.map(\.key), salt: salt, windowMinutes: UInt8(clamping: minutes), coding: coding).encoded()
    }

    /// How our next compact digest lists its packets: ``Settings/compactDigestCoding``, but
    /// 16-bit hashes while a neighbour that sends those may still be in range (one heard within
    /// ``neighbourMemory``): it runs an older build that reads nothing else. Such digests carry
    /// the fallback mark in their salt (``CompactDigest/fallbackSalt(_:)``), and marked ones do
    /// not count here: otherwise boxes of this build would keep each other falling back.
    func compactDigestCoding(at t: Duration) -> CompactDigest.Coding {
        guard settings.compactDigestCoding == .riceCoded, let heard = hashes16HeardAt, t - heard < neighbourMemory else {
            return settings.compactDigestCoding
        }
        return .hashes16
    }

    /// Our compact digest: the held packets got within the window, newest first. None while
    /// the last one still waits for the radio: that one goes out with what we hold by then.
    mutating func sendCompactDigest(at now: MeshNodeTime) {
        let waiting = queuedSync.filter { if case .compact = $0.value.kind { true } else { false } }.keys
        if waiting.contains(where: { queue.contains(id: $0) }) { return }
        counters.compactDigestsSent += 1
        if let id = sendControl(.digest, payload: compactDigestPayload(at: now.monotonic), at: now) {
            queuedSync[id] = QueuedSync(kind: .compact, generation: heldGeneration)
        }
    }

    /// `neighbour`'s compact digest lists something this box lacks: when its digests have
    /// done so for ``PacedRepair/fullDigestWhenLackingAfter``, our full digest goes out (after
    /// an answer delay, at most once a hello period), and the neighbour answers it with what
    /// we lack (``Reconciler/missing(held:digest:)``) — a second time whatever copies it hears
    /// (``answer(_:askedBy:at:)``).
    mutating func stillLacking(from neighbour: NodeID, at now: MeshNodeTime) {
        guard let after = settings.pacedRepair?.fullDigestWhenLackingAfter else { return }
        let t = now.monotonic
        guard let since = lackingSince[neighbour] else {
            lackingSince[neighbour] = t
            return
        }
        guard t - since >= after, lackingDigestAt.map({ t - $0 >= settings.router.helloPeriod }) ?? true else { return }
        lackingDigestAt = t
        lackingSince[neighbour] = t
        counters.digestsForLacking += 1
        deferAnswer(.digest, at: now)
    }

    /// A neighbour's compact digest: send it what it lacks (not its own packets; what it
    /// lacked in an earlier digest or asked for too, whatever copies are heard:
    /// ``Settings/compactLacksAskAgain``), and tell the repair timer whether the neighbourhood
    /// agrees.
    mutating func heardCompactDigest(_ header: MeshHeader, _ digest: CompactDigest, at now: MeshNodeTime) {
        let t = now.monotonic
        compactDigestHeardAt[header.origin] = t
        if digest.coding == .hashes16, !digest.marksFallback { hashes16HeardAt = t }
        // The margin is a third of the window at most: a digest whose window shrank to fit
        // (``Settings/compactDigestWindowShrinks``) is judged on its last two thirds.
        let window = Duration.seconds(60 * Int(digest.windowMinutes))
        let from = t - window + min(settings.compactDigestMargin, window / 3)
        let judged = recentPackets.filter {
            $0.value.listed && !$0.value.remembered && $0.value.at >= from && $0.value.at <= t - settings.compactDigestSettle
        }.keys
        let lacked = digest.missing(from: judged)
        let missing = lacked.filter { $0.origin != header.origin }
        if settings.repairAnswersRenewedWhenHeard, let unconfirmed = answersUnconfirmed[header.origin] {
            // Answers of ours it judged here and lists now: they got there.
            let got = unconfirmed.intersection(judged).subtracting(lacked)
            if !got.isEmpty {
                answersUnconfirmed[header.origin] = unconfirmed.subtracting(got)
                counters.repairAnswersRenewedWhenHeard += repairAnswers.renewCapped(for: header.origin, limit: settings.repairAnswersPerNeighbour, except: got)
            }
        }
        let answer = answerable(missing, to: header.origin, at: t)
        if settings.repairAnswersRenewedWhenHeard, !answer.isEmpty { answersUnconfirmed[header.origin, default: []].formUnion(answer) }
        if settings.compactLacksAskAgain {
            self.answer(answer, askedBy: header.origin, waitingIsNotAgain: true, at: now)
        } else if !answer.isEmpty {
            deferAnswer(.resend(answer), at: now)
        }
        guard var timer = repairTimer else { return }
        if digest.listsMoreThan(Set(heldSet()).union(recentPackets.keys)) {
            timer.inconsistent(now: t, mustSend: settings.pacedRepair?.lackingUnsuppressed ?? false)
            stillLacking(from: header.origin, at: now)
        } else {
            lackingSince[header.origin] = nil
            if missing.isEmpty { timer.consistent(from: header.origin) }
        }
        repairTimer = timer
    }
}
