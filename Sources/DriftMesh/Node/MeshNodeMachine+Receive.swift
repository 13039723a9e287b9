import Foundation

/// Frames heard: open, check, hold, route, reassemble, deliver, acknowledge.
extension MeshNodeMachine {
    /// One frame from the radio or (`fromBridge`) from another mesh through a gateway: the same
    /// path (open, expiry, seen-set, origin check, hold, route, deliver); a bridged frame is
    /// relayed here with the hops it has left and never handed back to the bridge. One-hop
    /// control frames (hello, digest, request) are refused from the bridge.
    mutating func process(_ bytes: [UInt8], link: LinkQuality, fromBridge: Bool, at now: MeshNodeTime) -> BridgeVerdict {
        let t = now.monotonic
        // Every frame heard counts in the channel's utilisation, as catch-up or foreground (a
        // frame that does not open is foreground), once it is known which.
        var catchUp = false
        if !fromBridge { counters.heard += 1 }
        defer {
            if !fromBridge {
                queue.noteReception(airtime: LoRaAirtime.duration(payloadBytes: bytes.count, modulation: settings.modulation),
                                    endingAt: t, background: catchUp)
            }
        }
        let header: MeshHeader
        let plaintext: [UInt8]
        do {
            (header, plaintext) = try sealer.open(bytes)
            catchUp = isCatchUpTraffic(header, at: t)
        } catch {
            switch error {
            case .wrongNetwork:
                counters.foreign += 1
                return .foreign
            case .authenticationFailed:
                counters.forged += 1
                return .forged
            default:
                counters.malformed[error.reason, default: 0] += 1
                return .malformed(error.reason)
            }
        }
        counters.authentic += 1
        let wallNow = now.wall
        if header.isExpired(now: wallNow) {
            counters.expired += 1
            return .expired
        }
        if !fromBridge, header.origin != me { noteDistance(of: header.origin, hopsTaken: header.hopsTaken, at: now.monotonic) }
        if fromBridge, header.kind == .hello || header.kind == .digest || header.kind == .request || header.kind == .topology {
            counters.bridgeRefused += 1
            return .refused
        }
        let expiresAt = Date(timeIntervalSince1970: Double(header.expiresAtMinute) * 60)
        let firstTime: Bool
        if header.origin == me {
            firstTime = false
        } else {
            do {
                firstTime = try memory.markSeen(header.key, expiresAt: expiresAt, now: wallNow)
            } catch {
                log(.error, "mesh seen-set write failed", ["error": "\(error)"])
                return .failed
            }
        }
        switch header.kind {
        case .hello:
            if firstTime { heardHello(header, plaintext, link: link, at: now) } else { counters.duplicates += 1 }
            return firstTime ? .accepted : .duplicate
        case .digest:
            if firstTime { heardDigest(header, plaintext, at: now) } else { counters.duplicates += 1 }
            return firstTime ? .accepted : .duplicate
        case .request:
            if firstTime { heardRequest(header, plaintext, at: now) } else { counters.duplicates += 1 }
            return firstTime ? .accepted : .duplicate
        case .topology:
            return heardTopology(header, plaintext, bytes: bytes, link: link, firstTime: firstTime, at: now)
        case .broadcast, .directed, .ack:
            return heardData(header, plaintext, bytes: bytes, link: link, firstTime: firstTime, fromBridge: fromBridge, at: now)
        }
    }

    /// Whether a frame heard is catch-up traffic, which background frames do not wait for
    /// (``TransmitQueue/Settings/backgroundYieldsToBackground``): a digest or request, or a copy
    /// of a packet the router first saw more than ``catchUpCopyAge`` before (a flood's copies
    /// come within seconds of each other); judged before the router sees this copy. A hello, a
    /// first copy — and a copy of a packet the router no longer tracks (first seen over ten
    /// minutes before): it cannot tell — count as foreground.
    func isCatchUpTraffic(_ header: MeshHeader, at t: Duration) -> Bool {
        switch header.kind {
        case .digest, .request:
            return true
        case .hello, .topology:
            return false
        case .broadcast, .directed, .ack:
            guard let first = router.firstSeen(header.key) else { return false }
            return t - first > Self.catchUpCopyAge
        }
    }

    /// A broadcast, directed or ack frame that opened and is not expired.
    private mutating func heardData(_ header: MeshHeader, _ plaintext: [UInt8], bytes: [UInt8], link: LinkQuality, firstTime: Bool,
                                    fromBridge: Bool, at now: MeshNodeTime) -> BridgeVerdict {
        let t = now.monotonic
        if !firstTime && header.origin != me { counters.duplicates += 1 }
        if let fragment = header.fragment, fragment.index + 1 < fragment.count {
            // The sender sends the remaining pieces back to back: stay quiet for them — with
            // ``Settings/missingPiecesResent``, up to the last one this box lacks: an origin
            // sends again only the pieces its relay lacked, and the relay and the destination
            // hold the others (they waited two seconds at LongFast for a piece that never came).
            let index = Int(fragment.index)
            let last = settings.missingPiecesResent
                ? (index + 1..<Int(fragment.count)).last { router.firstSeen(header.messageKey.piece($0)) == nil }
                : Int(fragment.count) - 1
            if let last {
                let piece = LoRaAirtime.duration(payloadBytes: bytes.count, modulation: settings.modulation)
                quietUntil = max(quietUntil, t + piece * (last - index) + settings.router.slot * 2)
            }
        }
        if !fromBridge { keepQuietForHiddenAnswer(header, at: t) }  // a bridged frame was not on our air
        // A packet we asked for came (from whoever sent it).
        requests.heard(header.key)
        if !firstTime, header.origin != me, settings.lacksAfterCopiesAskAgain, router.firstSeen(header.key).map({ t - $0 > Self.catchUpCopyAge }) ?? true {
            noteCatchUpCopy(header.key, at: t)
        }
        // Someone else just sent a copy of a packet we queued for catch-up, or are about to:
        // ours is redundant.
        if header.origin != me, let id = queuedCopies[header.key], queuedCopyKeys[id]?.catchUp == true, unqueue(header.key) {
            counters.resendsSuppressed += 1
        } else if header.origin != me, dropDeferredResend(header.key) {
            counters.resendsSuppressed += 1
        }
        if header.kind == .ack, let destination = header.destination, destination != me, let acked = Self.ackedPacketID(plaintext) {
            // Another box's message got to its destination: no last-hop retry for it.
            heardAck(for: PacketKey(origin: destination, packetID: acked), from: header.origin)
        }
        if header.origin == me, header.kind == .directed, header.hopsTaken > 0 {
            // A relay passing a piece of ours on (``Settings/missingPiecesResent``).
            heardPiecePassedOn(header, at: t)
        }
        if header.kind == .directed, header.destination == me, header.wantsAck {
            let first = header.messageKey
            let heard = copiesToMe[first]
            // A retry: the origin's own copy again, a box sending its copy again, or an
            // end-to-end retry by any path — but none within the margin of our last
            // acknowledgement, when the relays passing one retry on come together
            // (``Settings/acksRepeatedForRetriesOnly``).
            let sinceAck = heard?.ackedAt.map { t - $0 }
            let retry = (header.hopsTaken == 0 || heard?.senders.contains(header.relayer) == true || sinceAck.map { $0 >= settings.retrySpacing } ?? true)
                && (sinceAck.map { $0 >= settings.quickRetryMargin } ?? true)
            copiesToMe[first, default: ([], t, nil)].senders.insert(header.relayer)
            if !firstTime, acknowledged.contains(first), !retry, settings.acksRepeatedForRetriesOnly {
                // Another relay's copy of the same flood: our acknowledgement is on its way.
                counters.acksNotRepeated += 1
            } else if !firstTime, acknowledged.contains(first) {
                // The sender retried: our ack was lost on the way back. Acknowledge again.
                counters.acksRepeated += 1
                acknowledge(first, at: now)
            } else if header.fragment != nil {
                // A retry of a fragmented message not delivered yet: its pieces go to the
                // reassembler again (it ignores pieces it holds). Without this, a message whose
                // partial was lost (a missing piece outlived the reassembly timeout) could
                // never complete: every piece of every retry would be a duplicate here.
                deliver(header, plaintext, at: now)
            }
        }
        if !firstTime, header.kind == .directed, header.hopsTaken > 0, settings.retryRelaysSuppressed,
           retryRelaysDue.contains(where: { $0.key == header.key && !$0.nextToDestination }) {
            // Another box passed the retry on while ours waited: leave it to that one, unless
            // the destination is our neighbour (the other box may not reach it).
            retryRelaysDue.removeAll { $0.key == header.key && !$0.nextToDestination }
            counters.retryRelaysSuppressed += 1
        }
        if !firstTime, header.kind == .directed, header.destination != me, header.origin != me,
           let last = relayedDirected[header.key] ?? heardDirected[header.key],
           t - last >= settings.retrySpacing || header.hopsTaken == 0,
           relayedDirected[header.key] != nil || header.destination.flatMap({ hops(to: $0, at: t) }) == 1,
           let frame = try? MeshFrameCodec.relay(bytes, by: me) {
            // An end-to-end retry of a directed message we relayed before (the outbox waits
            // 30 s and more between attempts): relay it again along the same path, or it
            // would die at the first hop as a duplicate. Also when we did not relay it the
            // first time but its destination is now our neighbour (we had not heard its
            // hello yet): one hop delivers it. A copy heard straight from its origin (no hops
            // taken) is the origin sending it again whenever it comes — each transmission is
            // heard once — so it needs no spacing: the quick retry to a box two hops away
            // comes after 9 s at SF7, and the 15 s spacing swallowed it here. After a random
            // delay (``Settings/retryRelaysJittered``): every box that relayed the message hears
            // the retry at the same instant, and at once they all went on air together.
            relayedDirected[header.key] = t
            heardDirected[header.key] = nil
            counters.retriesRelayed += 1
            if settings.retryRelaysJittered {
                let nextToDestination = header.destination.flatMap { hops(to: $0, at: t) } == 1
                retryRelaysDue.append((t + settings.router.slot * rng.int(in: 0...settings.router.jitterSlots), header.key, frame, nextToDestination))
            } else {
                enqueue(frame, priority: .normal, counter: \.sentRelays)
            }
        }
        if header.kind == .directed, header.destination == me, firstTime,
           case .forged = sealer.verifyOrigin(bytes, me: keyPair, keyring: keyring) {
            counters.originForged += 1
            return .forged
        }
        if !fromBridge, header.origin != me, bridging {
            actions.append(.bridge(BridgeFrame(bytes: bytes, header: header, firstTime: firstTime, own: false,
                                               destinationIsLocal: isLocal(header.destination))))
        }
        if firstTime {
            if header.kind != .ack {
                noteNewPacket(at: t)
                noteRecent(header.key, listed: true, at: t)
            }
            if header.kind == .directed, header.destination != me, header.origin != me { heardDirected[header.key] = t }
            relayable[header.key] = (bytes, t + settings.router.packetMemory)
            if header.kind != .ack {
                do {
                    try memory.holdHeard(header.key, kind: header.kind, destination: header.destination, frame: bytes,
                                         receivedAt: now.wall, expiresAt: Date(timeIntervalSince1970: Double(header.expiresAtMinute) * 60))
                    heldGeneration += 1
                } catch {
                    log(.error, "mesh hold failed", ["key": "\(header.key)", "error": "\(error)"])
                }
            }
        }
        // Another copy from the broker (a second gateway's) says nothing about who heard
        // it on this mesh's air: it must not cancel the relay planned for the first copy.
        if fromBridge, !firstTime { return .duplicate }
        let routed = router.heard(header, link: link, firstTime: firstTime, now: t)
        apply(routed, plaintexts: firstTime ? [header.key: (header, plaintext)] : [:], at: now)
        return firstTime ? .accepted : .duplicate
    }

    /// A topology advert (``MeshRouterConfiguration/topologyPlan``): what its origin hears, for
    /// the router's relay plans; relayed on as the router decides, never held or delivered.
    private mutating func heardTopology(_ header: MeshHeader, _ plaintext: [UInt8], bytes: [UInt8], link: LinkQuality,
                                        firstTime: Bool, at now: MeshNodeTime) -> BridgeVerdict {
        let t = now.monotonic
        // Another box sent the advert we queued for a neighbour that asked: ours is redundant.
        if let id = queuedCopies[header.key], queuedCopyKeys[id]?.catchUp == true, unqueue(header.key) {
            counters.resendsSuppressed += 1
        }
        // An older advert than the one we hold (a neighbour answered with one it kept from before
        // a change): taken as a duplicate, its list neither learnt nor passed on.
        guard firstTime, !router.isOlderAdvert(header) else {
            if header.origin != me { counters.duplicates += 1 }
            apply(router.heard(header, link: link, firstTime: false, now: t), at: now)
            return .duplicate
        }
        guard let advert = try? HelloPayload(decoding: plaintext), advert.publicKey == nil else {
            counters.malformed["topology_advert", default: 0] += 1
            return .malformed("topology_advert")
        }
        router.heardTopology(from: header.origin, payload: advert, now: t)
        relayable[header.key] = (bytes, t + settings.router.packetMemory)
        advertFrames[header.origin] = (header.key, bytes)
        if advertFrames.count > Self.advertFramesKept {
            // Boxes whose lists the router forgot (gone or moved) first.
            let topology = router.topology
            advertFrames = advertFrames.filter { $0.key == me || topology.hears($0.key) != nil }
        }
        apply(router.heard(header, link: link, firstTime: true, now: t), at: now)
        return .accepted
    }

    private mutating func heardHello(_ header: MeshHeader, _ plaintext: [UInt8], link: LinkQuality, at now: MeshNodeTime) {
        guard let hello = try? HelloPayload(decoding: plaintext) else {
            counters.badHello += 1
            return
        }
        let t = now.monotonic
        let publicKey: [UInt8]
        if let key = hello.publicKey {
            guard NodeID(publicKey: key) == header.origin else {
                counters.badHello += 1
                return
            }
            switch keyring.learn(nodeID: header.origin, publicKey: key) {
            case .learned, .known: break
            default:
                counters.badHello += 1
                return
            }
            publicKey = key
        } else {
            // A box that leaves its key out knows we know it; if we do not (our memory was
            // lost), our hello leaves it out and it sends its key again.
            guard let known = keyring.publicKey(for: header.origin) else {
                counters.helloKeyUnknown += 1
                return
            }
            publicKey = known
            keylessHelloFrom[header.origin] = t
        }
        try? memory.rememberHello(from: header.origin, publicKey: publicKey, at: now.wall, link: link, hops: Int(header.hopsTaken))
        if hello.neighbours.isEmpty {
            // A box that just started (it has heard nobody yet): up since this hello (``heardUpSince``).
            heardUpSince[header.origin] = (t, t)
        }
        // By its hellos: a neighbour whose hellos we lost for two periods gets our digest even
        // when we heard its other frames meanwhile (a lossy link; the digest still pays off at
        // low load in the simulator).
        let wasNeighbour = router.neighbours.contains { $0.id == header.origin && t - $0.lastHello < settings.router.helloPeriod * 2 }
        var withKey = hello
        withKey.publicKey = publicKey  // the router keeps each neighbour's key, also from a keyless hello
        apply(router.heardHello(from: header.origin, payload: withKey, link: link, now: t), at: now)
        // A neighbour we had not heard for a while (or ever): tell it what we hold, so it can
        // fetch what it missed and offer what we missed. Not one whose compact digest came
        // meanwhile: only its hellos were lost (under load they collide; with the hello jitter
        // one lost hello can stretch the gap past two periods), and paced repair already sends
        // each of us what the other's digests lack. In the simulator leaving these full digests
        // (their repeats and answers) out saved 6–8 % of the airtime at 30–50 boxes, and the
        // boxes reached within 5 minutes moved within about one standard error
        // (docs/mesh-simulation.md).
        let recently = lastDigestTo[header.origin].map { t - $0 < settings.router.helloPeriod } ?? false
        guard !wasNeighbour && !recently else { return }
        if inRepair(header.origin, at: t) {
            counters.digestsLeftToRepair += 1
        } else {
            lastDigestTo[header.origin] = t
            if fullDigestShared(with: hello) {
                counters.digestsShared += 1
            } else {
                // After a random delay: the neighbour's other neighbours may answer its hello too.
                deferAnswer(.digest, at: now)
            }
            digestRepeatAt = t + settings.router.helloPeriod * 3
            digestRepeatFor[header.origin] = t
        }
    }

    private mutating func heardDigest(_ header: MeshHeader, _ plaintext: [UInt8], at now: MeshNodeTime) {
        counters.digestsHeard += 1
        if let compact = try? CompactDigest(decoding: plaintext) {
            heardCompactDigest(header, compact, at: now)
            return
        }
        guard let digest = try? SyncDigest(decoding: plaintext) else {
            counters.malformed["bad_digest", default: 0] += 1
            return
        }
        let held = heldSet()
        // What the neighbour lacks: send it (as held, the original sealed frames), after a
        // random delay — its other neighbours answer the same digest — and what it lacked in an
        // earlier digest or request too, whatever copies are heard (``answer(_:askedBy:at:)``).
        let missing = Reconciler.missing(held: held, digest: digest).filter { $0.origin != header.origin }  // never its own back
        answer(missing, askedBy: header.origin, at: now)
        // What we lack: ask for it (not our own packets, nor what we asked for already and
        // are still waiting for).
        let pending = requests.pending
        let wanted = Reconciler.wanted(held: Set(held), digest: digest) { $0.origin == me || pending.contains($0) }
        if !wanted.isEmpty { deferAnswer(.request(wanted), at: now) }
    }

    /// A neighbour's request: send it what it asks for (``answer(_:askedBy:at:)``).
    private mutating func heardRequest(_ header: MeshHeader, _ plaintext: [UInt8], at now: MeshNodeTime) {
        counters.requestsHeard += 1
        if plaintext.first == TopologyRequest.version {
            guard let request = try? TopologyRequest(decoding: plaintext) else {
                counters.malformed["bad_request", default: 0] += 1
                return
            }
            router.heardTopologyRequest(from: header.origin, boxes: request.boxes, now: now.monotonic)
            return
        }
        guard let request = try? SyncRequest(decoding: plaintext) else {
            counters.malformed["bad_request", default: 0] += 1
            return
        }
        answer(request.keys, askedBy: header.origin, at: now)
    }

    /// Sends `keys` to `neighbour`, which asked for them (a request) or showed it lacks them (a
    /// full digest, or a compact one: ``Settings/compactLacksAskAgain``), after a random delay. Its
    /// other neighbours hear the same frame, and a copy one of them sends first takes ours back —
    /// unless the neighbour asked for the packet before, within two hello periods: then the copies
    /// that took our answer back did not reach it (their senders are heard here but not there), and
    /// ours goes out whatever we hear. In the simulator a box back from an outage, which heard only
    /// one of the three neighbours that heard it, asked that one three times in three minutes and
    /// got nothing: the other two kept sending copies it could not hear; and after a power cut of
    /// the whole mesh the one box joining a patch of three to the rest sent its full digest three
    /// times, and the one holder it heard took its answer back each time for a copy from a holder
    /// it did not hear (docs/mesh-simulation.md).
    ///
    /// A packet whose catch-up copy from another box was heard well before the neighbour's
    /// digest or request counts as asked again too (``Settings/lacksAfterCopiesAskAgain``).
    ///
    /// With `waitingIsNotAgain` (a compact digest's lack), a packet whose answer of ours still
    /// waits (queued, or out its delay) is not asked again, nor does a copy heard before count:
    /// the neighbour's paced digests come every 30 s to 4 minutes, and under load answers wait
    /// longer than that for a clear channel.
    mutating func answer(_ keys: [PacketKey], askedBy neighbour: NodeID, waitingIsNotAgain: Bool = false, at now: MeshNodeTime) {
        guard !keys.isEmpty else { return }
        let t = now.monotonic
        var asked = requestedBy[neighbour] ?? [:]
        let again = !settings.answersRepeatedRequests ? [] : Set(keys.filter { key in
            if !waitingIsNotAgain, copyMissed(key, by: neighbour, at: t) { return true }
            guard let last = asked[key], t - last < settings.router.helloPeriod * 2 else { return false }
            return !waitingIsNotAgain || !answerWaits(key)
        })
        for key in keys { asked[key] = t }
        if asked.count > Self.requestsRememberedPerNeighbour {
            // The newest only: a neighbour asks again within minutes.
            asked = Dictionary(uniqueKeysWithValues: asked.sorted { ($0.value, $0.key) > ($1.value, $1.key) }.prefix(Self.requestsRememberedPerNeighbour).map { ($0.key, $0.value) })
        }
        requestedBy[neighbour] = asked
        let first = keys.filter { !again.contains($0) }
        if !first.isEmpty { deferAnswer(.resend(first), at: now) }
        if !again.isEmpty {
            counters.resendsAskedAgain += again.count
            deferAnswer(.resendAskedAgain(keys.filter(again.contains)), at: now)
        }
    }

    /// Remembers that another box sent a catch-up copy of `key` (``catchUpCopyHeardAt``).
    mutating func noteCatchUpCopy(_ key: PacketKey, at t: Duration) {
        catchUpCopyHeardAt[key] = t
        guard catchUpCopyHeardAt.count > Self.catchUpCopiesRemembered else { return }
        // The newest half: a neighbour's digest follows a copy it missed within minutes.
        let kept = catchUpCopyHeardAt.sorted { ($0.value, $0.key) > ($1.value, $1.key) }.prefix(Self.catchUpCopiesRemembered / 2)
        catchUpCopyHeardAt = Dictionary(uniqueKeysWithValues: kept.map { ($0.key, $0.value) })
    }

    /// Whether a catch-up copy of `key` from another box was heard long enough before `t` that
    /// a digest or request `neighbour` sends now would not lack it had the copy reached it (two
    /// longest frames: the digest's own time on air and a margin), within two hello periods,
    /// and while `neighbour` was up as far as this box can tell (``heardUpSince``: a box back
    /// from an outage lacks what went out while it was off, however well it hears).
    func copyMissed(_ key: PacketKey, by neighbour: NodeID, at t: Duration) -> Bool {
        guard settings.lacksAfterCopiesAskAgain, let heard = catchUpCopyHeardAt[key],
              let up = heardUpSince[neighbour], heard >= up.since else { return false }
        return t - heard > longestFrameAirtime * 2 && t - heard < settings.router.helloPeriod * 2
    }

    // MARK: Router actions

    mutating func apply(_ routed: [RouterAction], plaintexts: [PacketKey: (MeshHeader, [UInt8])] = [:], at now: MeshNodeTime) {
        for action in routed {
            switch action {
            case .deliver(let key):
                if let (header, plaintext) = plaintexts[key] { deliver(header, plaintext, at: now) }
            case .transmit(let header, _):  // power control not applied by the daemon yet
                if let own = ownFrames.removeValue(forKey: header.key) {
                    enqueue(own.frame, priority: own.priority, counter: \.sentOwn)
                    if bridging {
                        actions.append(.bridge(BridgeFrame(bytes: own.frame, header: header, firstTime: true, own: true,
                                                           destinationIsLocal: isLocal(header.destination))))
                    }
                } else if let held = relayable[header.key] {
                    if header.kind == .directed { relayedDirected[header.key] = now.monotonic; heardDirected[header.key] = nil }
                    if let frame = try? MeshFrameCodec.relay(held.frame, by: me) {
                        track(enqueue(frame, priority: header.kind == .ack ? .interactive : .normal, counter: \.sentRelays), header.key, catchUp: false)
                    }
                } else if header.origin == me, let frame = try? memory.heldFrames(for: [header.key]).first?.frame {
                    // An implicit-ack retry of one of our own broadcasts.
                    enqueue(frame, priority: .normal, counter: \.sentOwn)
                }
            case .cancelled(let key):
                // Planned relays the router dropped are in its own counter; here, relays already
                // queued for the radio and taken back. (A relay that already went out stays sent.)
                if unqueue(key) { counters.relaysCancelled += 1 }
                relayable[key] = nil
            case .sendTopology:
                sendTopology(at: now)
            case .requestTopology(let boxes):
                sendControl(.request, payload: TopologyRequest(boxes: boxes).encoded(), at: now)
            case .answerTopology(let header):
                if let held = advertFrames[header.origin], held.key == header.key,
                   let frame = try? MeshFrameCodec.resent(held.frame, hopsTaken: header.hopsTaken, by: me) {
                    // Taken back off the queue when another box's copy is heard first.
                    track(enqueue(frame, priority: .background, counter: \.sentSync), header.key, catchUp: true)
                }
            case .sendFollowUpHello:
                sendFollowUpHello(at: now)
            case .sendHello:
                sendHello(at: now)
                if !announced {
                    // Just started: tell the neighbours what we hold. Those that still count us
                    // as a neighbour (we were off for less than two hello periods) send us no
                    // digest of their own; they answer this one with what we missed.
                    announced = true
                    announcedAt = now.monotonic
                    announce(at: now)
                }
            }
        }
    }

    /// The first packet id an acknowledgement's payload names (``acknowledge(_:at:)``), `nil`
    /// when it is not four bytes.
    static func ackedPacketID(_ plaintext: [UInt8]) -> UInt32? {
        plaintext.count == 4 ? plaintext.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } : nil
    }

    mutating func deliver(_ header: MeshHeader, _ plaintext: [UInt8], at now: MeshNodeTime) {
        if header.kind == .ack {
            guard header.destination == me, let acked = Self.ackedPacketID(plaintext) else { return }
            let key = PacketKey(origin: me, packetID: acked)
            acknowledged(key)
            if (try? memory.markDelivered(key)) == true {
                counters.acksReceived += 1
                log(.info, "mesh message delivered", ["id": "\(key)", "by": "\(header.origin)"])
                actions.append(.confirmed(key))
            }
            return
        }
        let whole: (header: MeshHeader, payload: [UInt8])
        if header.fragment != nil {
            guard case .complete(let message) = reassembler.accept(header: header, chunk: plaintext, now: now.monotonic) else { return }
            whole = (message.header, message.payload)
        } else {
            whole = (header, plaintext)
        }
        if whole.header.kind == .directed, whole.header.wantsAck {
            acknowledged.insert(whole.header.key)
            if acknowledged.count > 1_024 { acknowledged.removeFirst() }
            acknowledge(whole.header.key, at: now)
        }
        // A payload is a port byte and a body: an empty one is no message.
        guard !whole.payload.isEmpty else {
            counters.malformed["empty_payload", default: 0] += 1
            return
        }
        counters.delivered += 1
        actions.append(.deliver(MeshNodeDelivery(
            key: whole.header.key, origin: whole.header.origin, destination: whole.header.destination,
            hops: Int(whole.header.hopsTaken), payload: whole.payload, frames: header.fragment.map { Int($0.count) } ?? 1,
            receivedAt: now.wall)))
    }
}
