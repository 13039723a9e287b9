/// Hellos without the key (``HelloPayload`` version 2). The 32-byte public key is a fifth of
/// a hello's time on air, and a neighbour needs it once: it binds the box's node id (the key's
/// hash) and lets the neighbour seal to it; boxes keep the keys they learnt (`mesh_peers`). A
/// hello carries it
/// - in the first two hellos after the machine starts (neighbours may not know this box);
/// - while a neighbour's hello leaves this box out, for two keyed hellos (it may not know the
///   key: a keyless hello from a box whose key it lacks is dropped; after two it is taken for a
///   one-way link);
/// - while any neighbour has not sent a keyless hello within its last three hello periods (it
///   may run an older build, which drops version 2): then every other hello is keyless, so
///   that boxes of this build learn this box reads them, and an older box still hears a keyed
///   hello every other period, within the three it waits before forgetting a neighbour;
/// - and every fourth hello in any case, for boxes that hear this one but that it does not hear.
extension MeshNodeMachine {
    /// Every how many hellos the key goes out whatever the neighbours.
    public static var keyedHelloEvery: Int { 4 }
    /// Keyed hellos sent for a neighbour whose hello leaves this box out, before it counts as
    /// a one-way link.
    static var keyedHellosForDeaf: Int { 2 }

    /// Queues our hello, at background priority. When the one before has not gone on air (the
    /// channel stayed busy for the whole hello period, or a full background class dropped it),
    /// it is taken off the queue and this one goes at normal priority instead, with the key if
    /// that one had it (``Settings/hellosWaitOnePeriodAtMost``): so a hello goes out at least
    /// every second period, and neighbours, which wait three, keep this box in their tables.
    mutating func sendHello(at now: MeshNodeTime) {
        var keyed = helloCarriesKey(at: now.monotonic)
        var priority = TransmitPriority.background
        if settings.hellosWaitOnePeriodAtMost, let stale = queuedHello {
            queue.remove(id: stale.id)
            keyed = keyed || stale.keyed
            priority = .normal
            counters.hellosPromoted += 1
        }
        queueHello(keyed: keyed, priority: priority, at: now)
        lastHelloQueuedAt = now.monotonic
    }

    /// Builds our hello (whom we hear now, with or without our key) and queues it.
    private mutating func queueHello(keyed: Bool, priority: TransmitPriority, at now: MeshNodeTime) {
        let hello = router.helloPayload(publicKey: keyed ? keyPair.publicKeyBytes : nil, now: now.monotonic)
        if !keyed { counters.sentKeylessHellos += 1 }
        queuedHello = sendControl(.hello, payload: hello.encoded(), priority: priority, at: now).map { ($0, keyed) }
    }

    /// The follow-up hello of our start (``MeshRouterConfiguration/helloFollowsUpStart``): whom
    /// we hear now, for the neighbours that heard our first hello, which listed fewer. With our
    /// key: a box switched on after our first hello, or that lost it, lacks the key, and a keyless
    /// hello from a box whose key it lacks it drops (`helloKeyUnknown`) — three real daemons on a
    /// line did so in 3 of 37 runs while the follow-up went keyless, and 1 of 53 while it went
    /// keyless only when every neighbour heard since listed us (we may not have heard the late
    /// box yet). It costs the key's 32 bytes once per start. The follow-up is not counted among
    /// the hellos that decide the key (``helloCarriesKey(at:)``), nor as our last hello for the
    /// digests we share (``fullDigestShared(with:)``): a neighbour that lists us heard our first
    /// hello, and the start digest after it. When our first hello still waits for the radio,
    /// this one goes in its place.
    mutating func sendFollowUpHello(at now: MeshNodeTime) {
        if let first = queuedHello { queue.remove(id: first.id) }
        queueHello(keyed: true, priority: .background, at: now)
    }

    /// Whether our next hello carries our key; counts the hello.
    mutating func helloCarriesKey(at t: Duration) -> Bool {
        let n = hellosSent
        hellosSent += 1
        let memory = settings.router.helloPeriod * max(1, settings.router.missedHellosBeforeExpiry)
        let live = router.neighbours.filter { t - $0.lastHeard <= memory }
        let deaf = Set(live.filter { router.isDeaf($0.id) }.map(\.id))
        let ids = Set(live.map(\.id))
        keylessHelloFrom = keylessHelloFrom.filter { ids.contains($0.key) }
        keyedHellosWhileDeaf = keyedHellosWhileDeaf.filter { deaf.contains($0.key) }
        let keyed: Bool
        if n < 2 || n % Self.keyedHelloEvery == 0 || deaf.contains(where: { keyedHellosWhileDeaf[$0, default: 0] < Self.keyedHellosForDeaf }) {
            keyed = true
        } else {
            let allReadKeyless = live.allSatisfy { keylessHelloFrom[$0.id].map { t - $0 <= memory } ?? false }
            keyed = !allReadKeyless && n % 2 == 0
        }
        if keyed { for id in deaf { keyedHellosWhileDeaf[id, default: 0] += 1 } }
        return keyed
    }
}
