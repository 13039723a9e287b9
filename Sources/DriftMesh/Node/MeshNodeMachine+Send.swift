import Foundation

/// Own messages: the outbox first, then the router; control frames and acknowledgements.
extension MeshNodeMachine {
    /// Stores `message` in the outbox and wakes the outbox check, which queues its first
    /// transmission.
    ///
    /// The message's hop limit is capped at 7, the most the header carries; its `expiresAt`
    /// shortens its life below the configured lifetime (a bottle's traffic dies with the
    /// bottle: relays drop its held frames then), never below a minute.
    mutating func send(_ message: MeshNodeMessage, at now: MeshNodeTime) throws -> MeshNodeReceipt {
        let payload = message.payload
        let destination = message.destination
        let wallNow = now.wall
        let lifetime = min(settings.messageLifetime, max(60, (message.expiresAt ?? .distantFuture).timeIntervalSince(wallNow)))
        let kind: FrameKind = destination == nil ? .broadcast : .directed
        let hops = min(message.hopLimit ?? settings.hopLimit, Self.maximumHopLimit)
        var probe = MeshHeader(kind: kind, origin: me, packetID: 0, destination: destination, hopStart: hops,
                               wantsAck: destination != nil,
                               expiresAtMinute: MeshHeader.expiryMinute(now: wallNow, lifetime: lifetime))
        let originKey = try destination.flatMap { node in
            try keyring.publicKey(for: node).map { try sealer.originKey(mine: keyPair, peerPublicKey: $0) }
        }
        let count = try Self.frameCount(payload, hasDestination: destination != nil, originTagged: originKey != nil)
        probe.packetID = try memory.nextPacketIDs(count: count)
        let frames = try sealer.sealPayload(payload, base: probe, originKey: originKey)
        let id = probe.key
        let expiresAt = Date(timeIntervalSince1970: Double(probe.expiresAtMinute) * 60)
        // A broadcast's frames are also held by `storeOutgoing` (for neighbours that miss them).
        try memory.storeOutgoing(id, destination: destination, frames: frames, priority: message.priority.rawValue,
                                 now: wallNow, expiresAt: expiresAt)
        for index in frames.indices {
            let key = id.piece(index)
            _ = try memory.markSeen(key, expiresAt: expiresAt, now: wallNow)
            noteRecent(key, listed: destination == nil, at: now.monotonic)  // a broadcast is held; a directed message is not
        }
        log(.info, "mesh message stored", ["id": "\(id)", "frames": "\(frames.count)", "to": destination.map { "\($0)" } ?? "all"])
        nextOutboxCheck = .zero
        outboxMayHoldWork = true
        return MeshNodeReceipt(id: "\(id)", packetID: id.packetID, frames: frames.count, destination: destination.map { "\($0)" })
    }

    /// Throws the ``SendError`` that ``MeshNodeInput/send(_:)`` would answer for a payload too
    /// large for 16 frames to `destination`, without storing or sending anything.
    public func checkFits(_ payload: [UInt8], to destination: NodeID? = nil) throws {
        let originTagged = destination.flatMap { keyring.publicKey(for: $0) } != nil
        _ = try Self.frameCount(payload, hasDestination: destination != nil, originTagged: originTagged)
    }

    /// How many frames `payload` takes (1 unfragmented, else up to 16 fragments).
    static func frameCount(_ payload: [UInt8], hasDestination: Bool, originTagged: Bool) throws -> Int {
        if payload.count <= MeshFrameCodec.maxPlaintext(hasDestination: hasDestination, fragmented: false, originTagged: originTagged) {
            return 1
        }
        let chunk = MeshFrameCodec.maxPlaintext(hasDestination: hasDestination, fragmented: true, originTagged: originTagged)
        do {
            return try Fragmenter.split(payload: payload, maxChunk: chunk).count
        } catch {
            throw SendError(description: "the message is \(payload.count) bytes; at most \(Fragmenter.maxPayload(maxChunk: chunk)) fit 16 frames")
        }
    }

    /// Hands what the outbox says is due (first sends and directed retries) to the router.
    mutating func serviceOutbox(at now: MeshNodeTime) {
        let due: [MeshDueMessage]
        do {
            due = try memory.dueOutgoing(now: now.wall)
        } catch {
            log(.error, "mesh outbox unreadable", ["error": "\(error)"])
            return
        }
        for entry in due { sendOutgoing(entry, at: now) }
    }

    /// Hands an outbox message's frames to the router and records the transmission (a directed
    /// message's next attempt waits on the retry schedule; not for a quick retry that keeps the
    /// schedule, `attempt` false). A directed message is kept until its last frame is on the
    /// air, for the quick retry (``awaitAnswer(to:relayed:at:)``).
    mutating func sendOutgoing(_ entry: MeshDueMessage, attempt: Bool = true, at now: MeshNodeTime) {
        let priority = TransmitPriority(rawValue: entry.priority) ?? .normal
        for (index, frame) in entry.frames.enumerated() {
            guard let header = try? MeshFrameCodec.parse(frame).header else { continue }
            let key = entry.id.piece(index)
            ownFrames[key] = (frame, entry.id, priority)
            apply(router.originate(header, now: now.monotonic), at: now)
        }
        do {
            if entry.isBroadcast {
                try memory.markSent(entry.id, now: now.wall)
            } else {
                if attempt {
                    let share = min(max(settings.outboxRetryJitter, 0), 1)
                    try memory.recordOutgoingAttempt(entry.id, now: now.wall, jitterShare: share > 0 ? share * retryRng.unit() : 0)
                }
                if !quickRetried.contains(entry.id) { awaitingAck[entry.id] = (entry, now.monotonic) }
            }
        } catch {
            log(.error, "mesh outbox update failed", ["id": "\(entry.id)", "error": "\(error)"])
        }
        listenForPieces(of: entry, at: now.monotonic)
    }

    /// Sends the end-to-end acknowledgement of a directed message (its first packet id) back to its origin.
    mutating func acknowledge(_ message: PacketKey, at now: MeshNodeTime) {
        copiesToMe[message, default: ([], now.monotonic, nil)].ackedAt = now.monotonic
        var ack: [UInt8] = []
        withUnsafeBytes(of: message.packetID.bigEndian) { ack.append(contentsOf: $0) }
        sendControl(.ack, payload: ack, destination: message.origin, hopStart: settings.hopLimit, priority: .interactive, at: now)
    }

    /// Seals and queues a one-hop control frame (digest, request, hello), or an ack or a
    /// topology advert through the router. Returns the queue id of a control frame queued.
    @discardableResult
    mutating func sendControl(_ kind: FrameKind, payload: [UInt8], destination: NodeID? = nil, hopStart: UInt8 = 0,
                              priority: TransmitPriority = .background, at now: MeshNodeTime) -> UInt64? {
        guard let (header, frame) = sealControl(kind, payload: payload, destination: destination, hopStart: hopStart,
                                                lifetime: kind == .topology ? topologyAdvertLifetime : nil, at: now) else { return nil }
        if kind == .ack || kind == .topology {
            ownFrames[header.key] = (frame, header.key, priority)
            if kind == .topology { advertFrames[me] = (header.key, frame) }
            apply(router.originate(header, now: now.monotonic), at: now)
            return nil
        }
        return enqueue(frame, priority: priority, counter: kind == .hello ? \.sentHellos : \.sentSync)
    }

    /// How long our topology advert stays valid: as long as the boxes keep its list
    /// (``MeshRouterConfiguration/topologyMaxAge``, three advert periods), so a neighbour can
    /// still send it again for a box that lacks it (advert repair) — a control frame's
    /// 10 minutes would have the box drop that copy as expired.
    var topologyAdvertLifetime: TimeInterval {
        let c = settings.router
        let age = c.topologyMaxAge ?? c.topologyPeriod * 3
        return max(600, Double(age.components.seconds))
    }

    /// Floods our topology advert (what we hear, ``MeshRouterConfiguration/topologyPlan``) at
    /// background priority, relayed by every box as its router decides.
    mutating func sendTopology(at now: MeshNodeTime) {
        let advert = router.topologyAdvert(now: now.monotonic)
        sendControl(.topology, payload: advert.encoded(), hopStart: settings.hopLimit, priority: .background, at: now)
    }

    /// Seals a control frame (or an ack) under a new packet id of ours. It is not written to
    /// the seen-set: a frame of our own that comes back is a duplicate by its origin, never by
    /// the set (``process(_:link:fromBridge:at:)``), and on a box nobody uses each hello and
    /// digest was otherwise a database write with its `fdatasync` (docs/performance.md, "Idle").
    mutating func sealControl(_ kind: FrameKind, payload: [UInt8], destination: NodeID? = nil, hopStart: UInt8 = 0,
                              lifetime: TimeInterval? = nil, at now: MeshNodeTime) -> (header: MeshHeader, frame: [UInt8])? {
        let wallNow = now.wall
        do {
            let id = try memory.nextPacketIDs(count: 1)
            let lifetime: TimeInterval = lifetime ?? (kind == .ack ? settings.messageLifetime : 600)
            let header = MeshHeader(kind: kind, origin: me, packetID: id, destination: destination, hopStart: hopStart,
                                    expiresAtMinute: MeshHeader.expiryMinute(now: wallNow, lifetime: lifetime))
            let frame = try sealer.seal(header: header, plaintext: payload)
            return (header, frame)
        } catch {
            log(.error, "mesh control frame not sent", ["kind": "\(kind)", "error": "\(error)"])
            return nil
        }
    }

    /// The keys a digest lists: what this box holds.
    func heldSet() -> [PacketKey] {
        (try? memory.heldKeys(limit: 4_096)) ?? []
    }

    /// Sends held frames to neighbours that lack them (background priority), at most
    /// ``framesPerAnswer``; with ``Settings/answersSpread`` those beyond the frames already
    /// queued, from a random one on (``answerBurst(_:)``). A copy is taken back when another
    /// box's copy of the packet is heard first, unless `takenBackByCopies` is false (a copy of
    /// ours already queued is then kept too).
    mutating func resend(_ keys: [PacketKey], takenBackByCopies: Bool = true) {
        let burst = answerBurst(keys)
        if !takenBackByCopies {
            for key in settings.answersSpread ? keys : burst {
                if let id = queuedCopies[key] { queuedCopyKeys[id]?.catchUp = false }
            }
        }
        guard !burst.isEmpty, let packets = try? memory.heldFrames(for: burst) else { return }
        for packet in packets where queuedCopies[packet.key] == nil {
            let frame = (try? MeshFrameCodec.relay(packet.frame, by: me)) ?? packet.frame
            counters.framesResent += 1
            track(enqueue(frame, priority: .background, counter: \.sentSync), packet.key, catchUp: takenBackByCopies)
        }
    }

    /// The frames of `keys` one answer sends. With ``Settings/answersSpread``, of those not
    /// queued already, ``framesPerAnswer`` from a random one on (wrapping round): neighbours
    /// answering the same digest send different frames, and a digest repeated while our answer
    /// is still queued brings the next ones. In the simulator boxes back from 12 minutes off
    /// that lacked some 80 packets got 0.55 of them within 5 minutes; with this 0.62
    /// (docs/mesh-simulation.md).
    mutating func answerBurst(_ keys: [PacketKey]) -> [PacketKey] {
        guard settings.answersSpread else { return Array(keys.prefix(Self.framesPerAnswer)) }
        let fresh = keys.filter { queuedCopies[$0] == nil }
        guard fresh.count > Self.framesPerAnswer else { return fresh }
        let start = rng.int(in: 0...(fresh.count - 1))
        return Array((fresh[start...] + fresh[..<start]).prefix(Self.framesPerAnswer))
    }
}
