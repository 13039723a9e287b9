/// The mesh router: decides, per frame heard, whether this box relays it and when.
///
/// A pure state machine: the daemon drives it with a monotonic clock, the simulator with
/// virtual time; randomness comes from the injected seed. The caller keeps the persisted
/// seen-set (it says `firstTime`), sends frames and hellos, and calls `due(now:)` at
/// `nextDeadline` (call it once at start: the first hello is due at once).
///
/// Design (docs/mesh-routing.md): hellos give every box its 1-hop neighbours and *their*
/// neighbours. A box that hears a packet for the first time relays it only if some of its
/// neighbours are not covered yet — covered meaning heard (with a usable link) by a box
/// that already transmitted this packet. The relay delay is shorter the more uncovered
/// neighbours it would reach, so the most useful relay speaks first; every copy overheard
/// meanwhile adds its sender's neighbours to the covered set, and a planned relay is
/// cancelled when nothing is left uncovered. After transmitting, a box listens for a
/// neighbour's relay (the implicit ack) and retransmits once if none came while boxes
/// beyond it still need the packet (a relay only with `retryRelays` or, while the channel is
/// busy, `retryRelaysWhenBusy`). A box that knows no neighbours yet, or started less than a
/// hello period ago (its table may still lack neighbours whose hellos it has not heard),
/// relays as a fallback: never pruned, cancelled by a copy from a box not heard with the
/// packet yet, as Meshtastic's flooding by any duplicate; placed by coverage when it knows an
/// uncovered neighbour, else after flooding's long random delay.
public struct MeshRouter: Sendable {
    public let me: NodeID
    /// Tuning; may change at run time (the simulator slows hellos after its warm-up).
    public var configuration: MeshRouterConfiguration {
        didSet { topology.shallowFirst = configuration.topologyShallowFirst }
    }
    private var rng: MeshRandom
    /// The implicit-ack retries' random extra (``MeshRouterConfiguration/implicitAckRetryJitter``),
    /// a stream of its own: the delays drawn from ``rng`` stay as they were.
    private var retryRng: MeshRandom
    private var table: [NodeID: Neighbour] = [:]
    private var packets: [PacketKey: PacketState] = [:]
    private var nextHelloAt: Duration?
    /// When this start's follow-up hello is due (``MeshRouterConfiguration/helloFollowsUpStart``);
    /// `nil` once it went or was skipped.
    private var followUpHelloAt: Duration?
    /// The neighbours our last hello listed, until the follow-up is due (it goes only when we
    /// know more).
    private var listedInLastHello: Set<NodeID> = []
    /// When the router started (its first `due`, which sends its first hello or, with
    /// `firstHelloSpread`, sets when it goes).
    private var startedAt: Duration?
    /// The caller's view of the channel (utilisation above its threshold); read by
    /// `cancelAfterCopiesOnlyWhenBusy`.
    public var channelBusy = false
    /// The share (0…1) of the last 30 s during which the caller heard frames
    /// (``ChannelBusyDetector/lastShare``, as of the last frame heard); read by
    /// `quietJitterSlots`.
    public var channelUtilisation = 0.0
    /// The share (0…1) of its airtime budget's limit this box has sent over the budget's window
    /// (`AirtimeBudget.usedFraction`; 0 with no limit), as of the node's last input while the
    /// plan is on; read by ``MeshRouterConfiguration/topologyFloodBudgetShare``.
    public var budgetUsedShare = 0.0
    /// What the router did, for `driftd status` and the simulator.
    public private(set) var counters = Counters()
    /// What this box knows of the whole mesh (``MeshRouterConfiguration/topologyPlan``).
    public private(set) var topology = MeshTopology()
    /// When our next topology advert is due (`nil`: not before the learning period ends).
    private var nextTopologyAt: Duration?
    /// When we sent our last advert, and the neighbour list it carried.
    private var lastTopologyAt: Duration?
    private var advertised: [NodeID: UInt8]?
    /// This period's offset from `topologyPeriod` (± a tenth, so boxes do not synchronise).
    private var topologyJitter: Duration = .zero
    /// Advert repair (``MeshRouterConfiguration/topologyRepair``): the boxes whose lists we lack,
    /// the latest advert of every box we know a list of (to answer with), and the answers we owe.
    private var lackedLists: [NodeID: LackedList] = [:]
    private var latestAdverts: [NodeID: MeshHeader] = [:]
    private var advertAnswers: [NodeID: Duration] = [:]
    /// The advert we last answered with for each box, and when
    /// (``MeshRouterConfiguration/topologyAnswerHoldoff``).
    private var answered: [NodeID: (advert: PacketKey, at: Duration)] = [:]
    /// The topology's generation when `lackedLists` was last brought up to date.
    private var lackScannedAt: Int?
    /// An ask for a list went unanswered: our own advert goes out again as soon as the minimum
    /// interval allows (``MeshRouterConfiguration/topologyFloodWhileLacking``).
    private var advertOwed = false

    struct LackedList: Sendable {
        var asks = 0
        var nextAskAt: Duration
        /// We asked for it at least once (and still lack it).
        var asked = false
        /// Our asks ran out once (``MeshRouterConfiguration/topologyRequestAttempts``): a list the
        /// floods did not bring by then may never come, and we flood no more adverts for it.
        var gaveUp = false
        /// Only boxes joined to us by no two-way chain name it (``MeshTopology/unlistedAcrossOneWayLinks(from:minimumBucket:)``).
        var acrossOneWay = false
        /// While this holds, every advert counts as planned for us
        /// (``MeshRouterConfiguration/topologyFloodWhileLacking``).
        var floodsAdverts: Bool { asked && acrossOneWay && !gaveUp }
    }

    /// Advert repair (``MeshRouterConfiguration/topologyRepair``): the lists we lack (boxes named
    /// at a bucket the plan uses whose own advert we do not hold), and of those the ones only
    /// boxes joined to us by no chain of two-way links name
    /// (``MeshRouterConfiguration/topologyFloodWhileLacking``): where a `driftd mesh status`
    /// showing them points at a one-way link.
    public var listsLacking: (all: Int, acrossOneWayLinks: Int) {
        (lackedLists.count, lackedLists.values.filter(\.acrossOneWay).count)
    }

    /// Running totals of the router's decisions.
    public struct Counters: Sendable, Hashable {
        public var relaysPlanned = 0
        public var relaysSent = 0
        public var relaysCancelled = 0
        /// First receptions we chose not to relay because every neighbour was covered.
        public var relaysPruned = 0
        public var implicitAckRetries = 0
        /// Relays sent because the topology plan names this box (``MeshRouterConfiguration/topologyPlan``).
        public var plannedRelays = 0
        /// Our topology adverts.
        public var topologyAdverts = 0
        /// Advert repair: our requests for lists we lacked, the boxes they named, and the
        /// adverts we sent again for a neighbour that asked; and the asks for a list we had
        /// answered for within ``MeshRouterConfiguration/topologyAnswerHoldoff`` (not answered).
        public var topologyRequests = 0
        public var topologyListsAsked = 0
        public var topologyAnswers = 0
        public var topologyAnswersHeldOff = 0
        /// Adverts not relayed, and our own not sent again, for a list lacked across one-way
        /// links because this box had used over ``MeshRouterConfiguration/topologyFloodBudgetShare``
        /// of its airtime budget.
        public var topologyFloodsHeldByBudget = 0
        /// Follow-up hellos of a start (``MeshRouterConfiguration/helloFollowsUpStart``): sent,
        /// and skipped because our first hello already listed every neighbour we knew.
        public var followUpHellos = 0
        public var followUpHellosSkipped = 0
    }

    struct PlannedRelay: Sendable {
        var header: MeshHeader
        var powerDbm: Int?
        var at: Duration
        var emitted: Bool
        var fallback: Bool
        /// The topology plan names this box: the relay goes out whatever is covered.
        var planned = false
        /// A box outside the plan: its fill-in waits ``MeshRouterConfiguration/topologyDeferSteps``
        /// (``MeshRouterConfiguration/topologyDeferStepsQuiet`` on a quiet channel).
        var deferred = false
        /// How its delay was drawn, for ``busyRedrawDelay(for:now:)``: rank steps (deferral
        /// included) of ``MeshRouterConfiguration/rankStepSlots(utilisation:)``, plus
        /// `fixedSlots`, plus 0…`jitterSlots` drawn at random.
        var steps = 0
        var fixedSlots = 0
        var jitterSlots = 0
    }

    struct PacketState: Sendable {
        var firstSeen: Duration
        var covered: Set<NodeID>
        var destination: NodeID?
        var relay: PlannedRelay?
        /// Our last transmission of this packet and its hop count.
        var sent: MeshHeader?
        var retryAt: Duration?
        var retried = false
        /// Copies overheard (any transmitter).
        var copies = 0
        /// The boxes whose copies we heard (every candidate of a colliding short id).
        var heardFrom: Set<NodeID> = []
    }

    public init(me: NodeID, configuration: MeshRouterConfiguration = .standard, seed: UInt64) {
        self.me = me
        self.configuration = configuration
        self.rng = MeshRandom(seed: seed ^ UInt64(me.rawValue) &* 0x2545_F491_4F6C_DD1D)
        self.retryRng = MeshRandom(seed: (seed ^ UInt64(me.rawValue) &* 0x2545_F491_4F6C_DD1D) ^ 0x6163_6B72_6574_7279)
        topology.shallowFirst = configuration.topologyShallowFirst
    }

    // MARK: Neighbours

    /// Known neighbours, by id.
    public var neighbours: [Neighbour] {
        table.values.sorted { $0.id < $1.id }
    }

    /// How many neighbours are in the table and not past their expiry at `now` (the table
    /// drops expired ones only when ``due(now:)`` runs).
    public func liveNeighbourCount(now: Duration) -> Int {
        table.values.reduce(0) { $0 + (isExpired($1, now: now) ? 0 : 1) }
    }

    /// The neighbour `id`, if we heard its hello and have not forgotten it.
    public func neighbour(_ id: NodeID) -> Neighbour? {
        table[id]
    }

    /// Whether `id`'s last hello says it does not hear us: we know it, and its neighbour list
    /// is complete (fewer than `HelloPayload.maxNeighbours` entries) and leaves us out. What
    /// we send it is then lost (repair answers it asks for go unanswered, docs/mesh.md).
    public func isDeaf(_ id: NodeID) -> Bool {
        guard let n = table[id] else { return false }
        return n.neighbours[me] == nil && n.neighbours.count < HelloPayload.maxNeighbours
    }

    /// Whether every neighbour in the table at `now` that hears us is one of `senders` or hears
    /// one of them, by its last hello's list. A neighbour whose hello leaves us out
    /// (``isDeaf(_:)``) needs nothing from us; one whose list is full may hear more than it
    /// lists and counts as hearing them. Paced repair asks this of the boxes whose consistent
    /// digests would keep ours back (``TrickleTimer/due(now:suppressedBy:)``).
    public func everyNeighbourHears(oneOf senders: Set<NodeID>, now: Duration) -> Bool {
        table.values.allSatisfy { n in
            isExpired(n, now: now) || senders.contains(n.id) || isDeaf(n.id)
                || n.neighbours.count >= HelloPayload.maxNeighbours || senders.contains { n.neighbours[$0] != nil }
        }
    }

    /// Our next hello's payload: our neighbours, best links first, at most `HelloPayload.maxNeighbours`.
    public func helloPayload(publicKey: [UInt8]?, now: Duration) -> HelloPayload {
        let live = liveNeighbours(now: now)
            .sorted { ($0.bucket, $1.id) > ($1.bucket, $0.id) }
        return HelloPayload(publicKey: publicKey, neighbours: live.map { HelloPayload.Entry(id: $0.id, bucket: $0.bucket) })
    }

    /// The neighbours our hello lists now: those not expired.
    private func liveNeighbours(now: Duration) -> [Neighbour] {
        table.values.filter { !isExpired($0, now: now) }
    }

    /// A neighbour's hello: refreshes our 1- and 2-hop knowledge.
    public mutating func heardHello(from sender: NodeID, payload: HelloPayload, link: LinkQuality, now: Duration) -> [RouterAction] {
        guard sender != me, sender != .broadcast else { return [] }
        let theirs = Self.heard(in: payload, by: sender)
        table[sender] = Neighbour(id: sender, link: link, lastHeard: now, publicKey: payload.publicKey ?? [], neighbours: theirs)
        if configuration.topologyPlan, configuration.topologyFromHellos { topology.learn(sender, hears: theirs, now: now) }
        return []
    }

    /// Our topology advert: the boxes we hear and how well (a keyless hello payload).
    public func topologyAdvert(now: Duration) -> HelloPayload {
        helloPayload(publicKey: nil, now: now)
    }

    /// A topology advert of `origin` (first copy; the caller decodes the payload): what that box
    /// hears, for the relay plans. With `topologyFromHellos` a neighbour's hellos win while we
    /// hear them (they are fresher).
    public mutating func heardTopology(from origin: NodeID, payload: HelloPayload, now: Duration) {
        guard origin != me, !configuration.topologyFromHellos || table[origin] == nil else { return }
        topology.learn(origin, hears: Self.heard(in: payload, by: origin), now: now)
    }

    /// A neighbour's ``TopologyRequest``: it lacks these boxes' lists. We answer for each we hold
    /// the latest advert of (ours included) after a random wait up to
    /// ``MeshRouterConfiguration/topologyAnswerJitter`` — another box's answer heard meanwhile
    /// takes ours back — unless its hello says it does not hear us, or we answered for that box
    /// with the same advert within ``MeshRouterConfiguration/topologyAnswerHoldoff`` (counted).
    /// A list we lack too we ask for no sooner than ``MeshRouterConfiguration/topologyAnswerJitter``
    /// plus a minute: the answers to this request likely reach us as well.
    public mutating func heardTopologyRequest(from requester: NodeID, boxes: [NodeID], now: Duration) {
        let c = configuration
        guard c.topologyPlan, c.topologyRepair, requester != me else { return }
        let deaf = isDeaf(requester)
        for box in boxes {
            if var lacked = lackedLists[box] {
                lacked.nextAskAt = max(lacked.nextAskAt, now + c.topologyAnswerJitter + .seconds(60))
                lackedLists[box] = lacked
            } else if !deaf, box != requester, advertAnswers[box] == nil, latestAdverts[box] != nil,
                      box == me || topology.hears(box) != nil {
                if let last = answered[box], last.advert == latestAdverts[box]?.key, now < last.at + c.topologyAnswerHoldoff {
                    counters.topologyAnswersHeldOff += 1
                    continue
                }
                let jitter = Int(Self.milliseconds(c.topologyAnswerJitter))
                advertAnswers[box] = now + .milliseconds(jitter > 0 ? rng.int(in: 0...jitter) : 0)
            }
        }
    }

    /// Whether `header` is an advert of its origin older than the latest we hold (a box's packet
    /// ids grow with every packet it sends, wrapping round): a neighbour may answer a request
    /// with an advert it kept from before the origin's list changed. The caller neither learns
    /// its list nor hands it on as a first copy.
    public func isOlderAdvert(_ header: MeshHeader) -> Bool {
        guard header.kind == .topology, let latest = latestAdverts[header.origin], latest.key != header.key else { return false }
        return Int32(bitPattern: header.packetID &- latest.packetID) < 0
    }

    /// A copy of a topology advert: the first is the latest advert of its origin (what we
    /// answer requests with); any copy of the advert we owe a neighbour means another box
    /// answered (or the flood just brought it), so ours stays back.
    private mutating func heardAdvertCopy(_ header: MeshHeader, firstTime: Bool) {
        guard header.origin != me else {
            if latestAdverts[me]?.key == header.key { advertAnswers[me] = nil }
            return
        }
        if firstTime, !isOlderAdvert(header) { latestAdverts[header.origin] = header }
        if latestAdverts[header.origin]?.key == header.key { advertAnswers[header.origin] = nil }
    }

    /// Advert repair's timers: the answers we owe, then the lists we lack (asked for together,
    /// in one request, every one due within the next minute).
    private mutating func dueAdvertRepair(now: Duration, into actions: inout [RouterAction]) {
        let c = configuration
        for box in advertAnswers.keys.sorted() where advertAnswers[box]! <= now {
            advertAnswers[box] = nil
            guard var answer = latestAdverts[box], box == me || topology.hears(box) != nil else { continue }
            if box != me {
                // Relayed on by the boxes that lacked it too, as their plans and coverage decide:
                // a patch that missed the advert (its boxes started after it went out) gets it
                // in one pass instead of one request round per hop.
                answer = answer.hopsLeft > 0 ? answer.relayed(by: me) : answer
                answer.relayer = me.shortID
            }
            counters.topologyAnswers += 1
            answered = answered.filter { now < $0.value.at + c.topologyAnswerHoldoff }
            answered[box] = (latestAdverts[box]!.key, now)
            actions.append(.answerTopology(answer))
        }
        guard !isLearningNeighbours(now: now) else { return }
        if lackScannedAt != topology.generation {
            lackScannedAt = topology.generation
            // Boxes whose lists were forgotten (gone or moved): nothing to answer with.
            latestAdverts = latestAdverts.filter { $0.key == me || topology.hears($0.key) != nil }
            let bucket = c.topologyMinimumBucket ?? c.minimumCoverBucket
            let unlisted = topology.unlisted(minimumBucket: bucket).subtracting([me])
            for box in lackedLists.keys where !unlisted.contains(box) { lackedLists[box] = nil }
            let spread = Int(Self.milliseconds(c.topologyRequestInterval / 10))
            for box in unlisted.sorted() where lackedLists[box] == nil {
                lackedLists[box] = LackedList(nextAskAt: now + c.effectiveTopologyRequestDelay + .milliseconds(spread > 0 ? rng.int(in: 0...spread) : 0))
            }
            // Also with the flood off: `listsLacking` reports them. A settled mesh lacks none.
            if !lackedLists.isEmpty {
                let across = topology.unlistedAcrossOneWayLinks(from: me, minimumBucket: bucket)
                for box in lackedLists.keys { lackedLists[box]?.acrossOneWay = across.contains(box) }
            }
        }
        guard lackedLists.values.contains(where: { $0.nextAskAt <= now }) else { return }
        let batch = lackedLists.filter { $0.value.nextAskAt <= now + .seconds(60) }.keys.sorted().prefix(TopologyRequest.maxBoxes)
        for box in batch {
            var lacked = lackedLists[box]!
            lacked.asks += 1
            lacked.asked = true
            // Asked again: the last ask went unanswered (``MeshRouterConfiguration/topologyFloodWhileLacking``).
            if c.topologyFloodWhileLacking, lacked.asks == 2, lacked.floodsAdverts {
                if floodsWithinBudget { advertOwed = true } else { counters.topologyFloodsHeldByBudget += 1 }
            }
            if lacked.asks >= c.topologyRequestAttempts {
                // It may not run the plan at all: try again a period later.
                lacked.asks = 0
                lacked.gaveUp = true
                lacked.nextAskAt = now + c.topologyPeriod
            } else {
                lacked.nextAskAt = now + c.topologyRequestInterval
            }
            lackedLists[box] = lacked
        }
        counters.topologyRequests += 1
        counters.topologyListsAsked += batch.count
        actions.append(.requestTopology(Array(batch)))
    }

    /// Whether this box's budget leaves room to flood adverts for a lacked list
    /// (``MeshRouterConfiguration/topologyFloodBudgetShare``).
    private var floodsWithinBudget: Bool {
        configuration.topologyFloodBudgetShare.map { budgetUsedShare <= $0 } ?? true
    }

    /// The boxes `sender`'s hello or advert lists, by their best bucket (not the sender itself).
    private static func heard(in payload: HelloPayload, by sender: NodeID) -> [NodeID: UInt8] {
        var theirs: [NodeID: UInt8] = [:]
        for entry in payload.neighbours where entry.id != sender {
            theirs[entry.id] = max(theirs[entry.id] ?? 0, entry.bucket)
        }
        return theirs
    }

    /// The boxes we hear, by bucket, as our hello lists them.
    private func ownList(now: Duration) -> [NodeID: UInt8] {
        var list: [NodeID: UInt8] = [:]
        for n in table.values where !isExpired(n, now: now) { list[n.id] = n.bucket }
        return list
    }

    /// Whether the topology plan names us as a relay of `header`'s flood (`nil`: no plan —
    /// the option is off, the packet is not a broadcast, or we know nothing of its origin).
    /// While we lack a list we asked for that is named only across one-way links, every advert
    /// counts as planned for us (``MeshRouterConfiguration/topologyFloodWhileLacking``).
    private mutating func plannedRelay(_ header: MeshHeader, now: Duration) -> Bool? {
        let c = configuration
        guard c.topologyPlan, header.destination == nil, header.kind == .broadcast || header.kind == .topology else { return nil }
        if header.kind == .topology, c.topologyFloodWhileLacking, lackedLists.values.contains(where: \.floodsAdverts) {
            if floodsWithinBudget { return true }
            counters.topologyFloodsHeldByBudget += 1
        }
        if c.topologyFromHellos { topology.learn(me, hears: ownList(now: now), now: now) }
        return topology.relays(from: header.origin, minimumBucket: c.topologyMinimumBucket ?? c.minimumCoverBucket,
                               variant: planVariant(header), slack: c.topologyPlanSlack)?.contains(me)
    }

    /// The plan variant `header`'s flood follows (``MeshRouterConfiguration/topologyPlanVariants``).
    private func planVariant(_ header: MeshHeader) -> UInt32 {
        let variants = configuration.topologyPlanVariants
        return variants > 1 ? header.packetID % UInt32(variants) : 0
    }

    /// Counts as covered our neighbours the plan reaches through a relay we do not hear that
    /// likely holds the packet (``MeshRouterConfiguration/topologyTrustDepth``), or through the
    /// origin when we do not hear it: copies we could not have heard, so not ours to fill in.
    private mutating func trustPlan(_ header: MeshHeader, state: inout PacketState) {
        let bucket = configuration.topologyMinimumBucket ?? configuration.minimumCoverBucket
        guard let relays = topology.plan(from: header.origin, minimumBucket: bucket, variant: planVariant(header),
                                         slack: configuration.topologyPlanSlack) else { return }
        var senders = state.heardFrom.union([header.origin])
        var trusted: Set<NodeID> = [header.origin]
        let hidden = relays.filter { $0 != me && table[$0] == nil }
        for _ in 0..<configuration.topologyTrustDepth {
            var holdersHeard: Set<NodeID> = []
            for t in senders { holdersHeard.formUnion(topology.hearers(of: t, minimumBucket: bucket)) }
            let next = hidden.filter { !trusted.contains($0) && holdersHeard.contains($0) }
            if next.isEmpty { break }
            trusted.formUnion(next)
            senders = Set(next)
        }
        for r in trusted where r != me && table[r] == nil {
            for u in topology.hearers(of: r, minimumBucket: bucket) where table[u] != nil { state.covered.insert(u) }
        }
    }

    /// Why a relay of a flood goes out (``relayReason(_:)``).
    public enum RelayReason: String, Sendable, Codable, CaseIterable {
        /// No neighbour knowledge yet, or not a hello period of it: a fallback, never pruned.
        case fallback
        /// The topology plan names this box.
        case planned
        /// A box outside the topology plan filling in, after its deferral.
        case fillIn
        /// The coverage rule alone (no plan, or none for this origin).
        case coverage
    }

    /// Why our relay of `key`, planned or already sent, goes out (`nil`: none, or no longer tracked).
    public func relayReason(_ key: PacketKey) -> RelayReason? {
        guard let relay = packets[key]?.relay else { return nil }
        if relay.fallback { return .fallback }
        if relay.planned { return .planned }
        return relay.deferred ? .fillIn : .coverage
    }

    /// When this router first saw packet `key` (heard or originated), while it still tracks
    /// it (``MeshRouterConfiguration/packetMemory``, at most ``MeshRouterConfiguration/maxTrackedPackets``).
    public func firstSeen(_ key: PacketKey) -> Duration? {
        packets[key]?.firstSeen
    }

    /// Whether the neighbour table may still be incomplete at `now`: the router has not started
    /// yet, or started less than the learning period (one hello period and its jitter) ago.
    /// Meanwhile it does not prune relays on coverage.
    public func isLearningNeighbours(now: Duration) -> Bool {
        guard let startedAt else { return true }
        return now - startedAt < configuration.effectiveNeighbourLearningPeriod
    }

    private func isExpired(_ n: Neighbour, now: Duration) -> Bool {
        now - n.lastHeard > expiryAge
    }

    private var expiryAge: Duration {
        (configuration.helloPeriod + configuration.helloJitter) * configuration.missedHellosBeforeExpiry
    }

    // MARK: Packets

    /// We made a packet: transmit it now (and expect a neighbour to relay it).
    public mutating func originate(_ header: MeshHeader, now: Duration) -> [RouterAction] {
        var state = PacketState(firstSeen: now, covered: [me], destination: header.destination)
        if header.kind == .topology { latestAdverts[me] = header }
        markSent(header, in: &state, now: now)
        packets[header.key] = state
        bound()
        return [.transmit(header)]
    }

    /// A decoded, authenticated frame heard on the radio. `firstTime`: not yet in the
    /// box's seen-set. Duplicates matter too: every copy overheard covers its sender's neighbours.
    public mutating func heard(_ header: MeshHeader, link: LinkQuality, firstTime: Bool, now: Duration) -> [RouterAction] {
        let key = header.key
        if header.kind == .topology { heardAdvertCopy(header, firstTime: firstTime) }
        let transmitters = transmitterCandidates(header, link: link)
        // Link quality comes from hellos only: data frames may be sent at reduced power.
        let forMe = header.destination == nil || header.destination == me
        let relayable = header.kind == .broadcast || header.kind == .directed || header.kind == .ack || header.kind == .topology

        guard relayable, header.origin != me || packets[key] != nil else {
            return firstTime && forMe && header.origin != me ? [.deliver(key)] : []
        }

        // A neighbour named by this frame alone is still in range, whatever became of its hellos.
        if configuration.neighboursKeptByTheirFrames, transmitters.count == 1, let id = transmitters.first,
           let known = table[id], !isExpired(known, now: now) {
            table[id]?.lastHeard = now
        }
        var actions: [RouterAction] = []
        var state = packets[key] ?? PacketState(firstSeen: now, covered: [], destination: header.destination)
        let isNew = packets[key] == nil
        // A copy only from boxes whose copies we heard already (the origin's retry) covers
        // nobody new; an unknown transmitter may be anyone.
        let fromNewTransmitter = transmitters.isEmpty || !transmitters.allSatisfy(state.heardFrom.contains)
        state.covered.insert(header.origin)
        cover(transmitters, in: &state)
        state.heardFrom.formUnion(transmitters)
        state.copies += 1
        if configuration.topologyTrustDepth > 0, let relay = state.relay, relay.deferred, !relay.emitted {
            trustPlan(header, state: &state)
        }

        // Implicit ack: a copy relayed one hop beyond ours.
        if let sent = state.sent, header.hopsTaken > sent.hopsTaken {
            state.retryAt = nil
        }

        if firstTime, header.origin != me {
            if forMe { actions.append(.deliver(key)) }
            if header.destination == me || header.hopsLeft == 0 || state.sent != nil || state.relay != nil {
                packets[key] = state
                if isNew { bound() }
                return actions
            }
            planRelay(header, link: link, transmitters: transmitters, state: &state, now: now)
            if configuration.relayPiecesTogether { relayWithOtherPieces(header, state: &state, now: now) }
        } else if let relay = state.relay, !relay.planned || plannedRelayIsLate(relay, now: now),
                  relay.fallback ? fromNewTransmitter || !configuration.fallbackKeptOnRepeatedCopies : !stillNeeded(state) {
            // Redundant now. If it was already handed out, the caller drops it when it is
            // still queued for a clear channel (and ignores this when it already went out).
            state.relay = nil
            if relay.emitted {
                state.retryAt = nil
            } else {
                counters.relaysCancelled += 1
            }
            actions.append(.cancelled(key))
        }
        packets[key] = state
        if isNew { bound() }
        return actions
    }

    /// A planned relay handed out ``MeshRouterConfiguration/topologyPlannedRelayLateAfter``
    /// or longer ago that is still waiting: copies heard now may take it back, as any relay.
    private func plannedRelayIsLate(_ relay: PlannedRelay, now: Duration) -> Bool {
        guard relay.planned, relay.emitted, let late = configuration.topologyPlannedRelayLateAfter else { return false }
        return now - relay.at >= late
    }

    /// Takes back our relay of `key` when it is a planned relay that is late
    /// (``MeshRouterConfiguration/topologyPlannedRelayLateAfter``) and the copies heard so far
    /// cover every neighbour — as ``heard(_:link:firstTime:now:)`` would at the next copy, which
    /// may never come. The caller asks this of a relay still queued for the radio when the radio
    /// is free (``MeshRouterConfiguration/topologyPlannedRelayLateCheckedBeforeSending``) and
    /// drops the frame when the answer is `true`.
    public mutating func takeBackLateRelay(_ key: PacketKey, now: Duration) -> Bool {
        guard var state = packets[key], let relay = state.relay, plannedRelayIsLate(relay, now: now), !stillNeeded(state) else {
            return false
        }
        state.relay = nil
        state.retryAt = nil
        packets[key] = state
        return true
    }

    private mutating func planRelay(_ header: MeshHeader, link: LinkQuality, transmitters: [NodeID], state: inout PacketState, now: Duration) {
        let relayed = header.relayed(by: me)
        let c = configuration
        // Not a hello period of neighbour knowledge yet: a neighbour whose hello we have not
        // heard would be taken as covered, so the relay is a fallback — never pruned, and a
        // copy cancels it as in managed flooding (not one from a box heard already).
        let learning = table.isEmpty || isLearningNeighbours(now: now)
        var deferSteps = 0
        if !learning, let planned = plannedRelay(header, now: now) {
            if planned {
                let jitter = c.snrScaledJitterSlots(c.relayJitterSlots(c.leaderJitterSlots ?? c.jitterSlots, utilisation: channelUtilisation), snr: link.snr)
                state.relay = PlannedRelay(header: relayed, powerDbm: nil, at: now + c.slot * rng.int(in: 0...max(0, jitter)),
                                           emitted: false, fallback: false, planned: true, jitterSlots: max(0, jitter))
                counters.relaysPlanned += 1
                return
            }
            deferSteps = c.topologyDeferral(utilisation: channelUtilisation)
            if c.topologyTrustDepth > 0 { trustPlan(header, state: &state) }
        }
        let missing = uncovered(state)
        if learning, missing.isEmpty || !c.learningRelaysRanked {
            // Nobody known uncovered (or the rule before): flooding's long random delay, for
            // the neighbours not heard yet.
            let fixed = 2 * c.rankCap * c.slotsPerRank / 2, spread = 2 * c.rankCap * c.slotsPerRank
            let slots = fixed + rng.int(in: 0...spread)
            state.relay = PlannedRelay(header: relayed, powerDbm: nil, at: now + c.slot * slots, emitted: false, fallback: true,
                                       fixedSlots: fixed, jitterSlots: spread)
            counters.relaysPlanned += 1
            return
        }
        guard !missing.isEmpty else {
            counters.relaysPruned += 1
            return
        }
        var steps = c.rankCap - min(missing.count, c.rankCap)
        var jitter = channelBusy ? c.busyJitterSlots ?? c.jitterSlots : c.jitterSlots
        if let d = state.destination, missing.contains(d) {
            steps = c.destinationRelayOrder ? min(c.rankCap - 1, relaysAhead(toward: d, key: header.key, state: state)) : 0
        } else if c.relayOrderAmongNeighbours {
            steps = min(c.rankCap - 1, relaysAhead(reaching: missing.count, key: header.key, state: state))
        }
        if c.relayOrderAmongNeighbours, steps == 0, let leader = c.leaderJitterSlots {
            jitter = channelBusy ? c.busyLeaderJitterSlots ?? leader : leader
            if let clear = c.clearLeaderJitterSlots, channelBusy || !c.clearLeaderOnlyWhenBusy,
               !mayHaveHiddenRival(missing: missing, transmitters: transmitters, state: state) {
                jitter = clear
            }
        }
        jitter = c.snrScaledJitterSlots(c.relayJitterSlots(jitter, utilisation: channelUtilisation), snr: link.snr)
        let slots = (steps + deferSteps) * c.rankStepSlots(utilisation: channelUtilisation) + rng.int(in: 0...max(0, jitter))
        state.relay = PlannedRelay(header: relayed, powerDbm: nil, at: now + c.slot * slots, emitted: false, fallback: learning,
                                   deferred: deferSteps > 0, steps: steps + deferSteps, jitterSlots: max(0, jitter))
        counters.relaysPlanned += 1
    }

    /// With ``MeshRouterConfiguration/redrawRelayDelayWhenBusy``: our relay of another box's data
    /// (`header`, handed out by ``due(now:)``) found the channel busy when its turn came. How long
    /// it waits before the next look: its planned delay drawn afresh — the same rank steps (the
    /// plan's deferral included) of ``MeshRouterConfiguration/rankStepSlots(utilisation:)`` at the
    /// channel's utilisation now, and a new draw from the SNR-scaled jitter it was planned with —
    /// as Meshtastic's firmware re-draws its weighted delay, so relays keep their order on a busy
    /// channel. `nil` (the caller's own back-off): off, our own frames, and frames of packets
    /// this router planned no relay for. A copy heard meanwhile still cancels it (`.cancelled`).
    /// With ``MeshRouterConfiguration/redrawRankStepSlots`` the re-draw's rank step is that many
    /// slots instead (the order kept, the wait shorter); the jitter is the same.
    public mutating func busyRedrawDelay(for header: MeshHeader, now: Duration) -> Duration? {
        guard configuration.redrawRelayDelayWhenBusy, header.isRelayedData(by: me),
              let relay = packets[header.key]?.relay else { return nil }
        let c = configuration
        let step = c.redrawRankStepSlots ?? c.rankStepSlots(utilisation: channelUtilisation)
        let slots = relay.steps * step + relay.fixedSlots
            + rng.int(in: 0...max(0, relay.jitterSlots))
        return c.slot * slots
    }

    /// A piece of a fragmented message goes out with the others
    /// (``MeshRouterConfiguration/relayPiecesTogether``): right behind the piece before it, at
    /// the moment planned for that one — ``due(now:)`` hands out packets in key order, and
    /// pieces take consecutive ids — or at once when this box passed another piece of the
    /// message on already (the piece before is still queued behind the quiet rule while this
    /// one was on the air; or this is a piece the origin sent again because this box lacked
    /// it, and the destination holds the others and waits for it). A piece of a message this
    /// box has passed nothing of on yet, and whose predecessor it does not plan to relay
    /// (pruned, cancelled by a copy, never heard), keeps its own delay.
    private func relayWithOtherPieces(_ header: MeshHeader, state: inout PacketState, now: Duration) {
        guard let fragment = header.fragment, state.relay != nil else { return }
        let index = Int(fragment.index), message = header.messageKey
        if index > 0, let relay = packets[message.piece(index - 1)]?.relay, !relay.emitted {
            state.relay?.at = relay.at
        } else if (0..<Int(fragment.count)).contains(where: { $0 != index && packets[message.piece($0)]?.sent != nil }) {
            state.relay?.at = now
        }
    }

    /// Whether a box we do not hear may be relaying this packet to some of the same `missing`
    /// neighbours: a box their hellos list, not our neighbour, that the copy's transmitter's
    /// hello lists too (so it likely heard the same copy). Unknown transmitters or a missing
    /// neighbour's unknown list count as a possible rival.
    private func mayHaveHiddenRival(missing: [NodeID], transmitters: [NodeID], state: PacketState) -> Bool {
        guard !transmitters.isEmpty else { return true }
        var heardTheCopy: Set<NodeID> = []
        for t in transmitters {
            guard let n = table[t] else { return true }
            heardTheCopy.formUnion(n.neighbours.keys)
        }
        for u in missing {
            guard let n = table[u] else { return true }
            for x in n.neighbours.keys where x != me && table[x] == nil && (heardTheCopy.contains(x) || state.covered.contains(x)) {
                return true
            }
        }
        return false
    }

    /// How many neighbours that hold this packet too (a copy covered them) would reach more
    /// boxes still uncovered than our `reach`, counted in their hellos' neighbour lists as
    /// `uncovered` counts ours (every bucket; not us). Equal counts are ordered by a hash of
    /// the id and the packet, so no box always goes last.
    private func relaysAhead(reaching reach: Int, key: PacketKey, state: PacketState) -> Int {
        let mine = Self.relayOrder(me, key)
        var ahead = 0
        for n in table.values where state.covered.contains(n.id) {
            let theirs = n.neighbours.keys.reduce(0) { $0 + ($1 != me && !state.covered.contains($1) ? 1 : 0) }
            if theirs > reach || (theirs == reach && Self.relayOrder(n.id, key) < mine) { ahead += 1 }
        }
        return ahead
    }

    /// How many neighbours that hold this packet too (a copy covered them) and hear its
    /// destination `d` (their hellos list it) go before us, in the per-packet hash order:
    /// each could deliver it as well as we can.
    private func relaysAhead(toward d: NodeID, key: PacketKey, state: PacketState) -> Int {
        let mine = Self.relayOrder(me, key)
        return table.values.filter { n in
            state.covered.contains(n.id) && n.neighbours[d] != nil && Self.relayOrder(n.id, key) < mine
        }.count
    }

    /// A box's place among relays of equal standing, drawn per packet from its id, so no box
    /// always goes last.
    private static func relayOrder(_ id: NodeID, _ key: PacketKey) -> UInt64 {
        var x = UInt64(id.rawValue) ^ (UInt64(key.packetID) << 32 | UInt64(key.origin.rawValue))
        x = (x ^ (x >> 33)) &* 0xFF51_AFD7_ED55_8CCD
        return x ^ (x >> 33)
    }

    /// Who may have transmitted this copy: the origin at hop 0; else the neighbours whose
    /// short id is the relayer's. Short ids are one byte of a random id, so neighbours
    /// collide (about one 8-neighbour neighbourhood in eight). Candidates that cannot have
    /// sent it are dropped: at hop 1 the relayer heard the origin, so its hello lists the
    /// origin when the origin is a box we know; and at full power the copy arrives about
    /// as strong as the candidate's hellos (`transmitterSnrToleranceDb`). An empty result
    /// means an unknown transmitter (no credit).
    private func transmitterCandidates(_ header: MeshHeader, link: LinkQuality) -> [NodeID] {
        if header.hopsTaken == 0 { return [header.origin] }
        var candidates = table.keys.filter { $0.shortID == header.relayer && $0 != header.origin }.sorted()
        guard !candidates.isEmpty else { return [] }
        if header.hopsTaken == 1, table[header.origin] != nil {
            candidates = candidates.filter { table[$0]?.neighbours[header.origin] != nil }
        }
        if !configuration.powerControl, let tolerance = configuration.transmitterSnrToleranceDb {
            candidates = candidates.filter { abs((table[$0]?.link.snr ?? .infinity) - link.snr) <= tolerance }
        }
        return candidates
    }

    /// The boxes `transmitter`'s copy reached. For our own neighbours the right direction
    /// is known — each lists in its hello how well *it* hears the transmitter — so that is
    /// used (links are asymmetric); for boxes beyond, only the transmitter's list (how it
    /// hears them) is known.
    private func coverage(of t: NodeID) -> Set<NodeID> {
        var reached: Set<NodeID> = [t]
        let minimum = configuration.minimumCoverBucket
        for (id, n) in table {
            if let b = n.neighbours[t], b >= minimum { reached.insert(id) }
        }
        if let n = table[t] {
            for (id, bucket) in n.neighbours where bucket >= minimum && table[id] == nil {
                reached.insert(id)
            }
        }
        return reached
    }

    /// Marks what this copy reached. With several candidate transmitters (colliding short
    /// ids) only what every one of them would have reached counts: no credit is given
    /// that the real transmitter might not have earned.
    private func cover(_ transmitters: [NodeID], in state: inout PacketState) {
        guard var reached = transmitters.first.map(coverage(of:)) else { return }
        for t in transmitters.dropFirst() { reached.formIntersection(coverage(of: t)) }
        state.covered.formUnion(reached)
    }

    private func uncovered(_ state: PacketState) -> [NodeID] {
        if let d = state.destination, state.covered.contains(d) { return [] }
        return table.keys.filter { !state.covered.contains($0) }
    }

    private func stillNeeded(_ state: PacketState) -> Bool {
        let missing = uncovered(state).count
        if configuration.cancelAfterCopies > 0, state.copies >= configuration.cancelAfterCopies,
           !configuration.cancelAfterCopiesOnlyWhenBusy || channelBusy,
           missing <= max(configuration.cancelWhenUncoveredAtMost, Int(configuration.cancelWhenUncoveredShare * Double(table.count))) {
            return false
        }
        return missing > 0
    }

    /// Power for a relay: enough for the weakest still-uncovered neighbour (its hello
    /// link SNR, taken as symmetric, minus `powerMarginDb` of headroom); `nil` = full power.
    private func relayPower(_ state: PacketState) -> Int? {
        let c = configuration
        guard c.powerControl else { return nil }
        var slack = Double.infinity
        for id in uncovered(state) {
            guard let n = table[id] else { continue }
            slack = min(slack, n.link.snr - c.decodeSnrDb)
        }
        guard slack.isFinite else { return nil }
        let cut = Int((slack - c.powerMarginDb).rounded(.down))
        guard cut > 0 else { return nil }
        return max(c.minTxPowerDbm, c.maxTxPowerDbm - cut)
    }

    /// Boxes two hops away (through a usable link) that no transmission we heard has covered.
    private func downstreamUncovered(_ state: PacketState) -> Bool {
        if let d = state.destination, state.covered.contains(d) { return false }
        for n in table.values where n.bucket >= configuration.minimumCoverBucket {
            for (id, bucket) in n.neighbours where bucket >= configuration.minimumCoverBucket {
                // Our own neighbours heard our transmission; anyone else still needs a relay.
                if id != me, table[id] == nil, !state.covered.contains(id) { return true }
            }
        }
        return false
    }

    /// Whether our transmission of `header` waits for an implicit ack and retries once: always
    /// for the origin; for a relay with `retryRelays`, or with `retryRelaysWhenBusy` while the
    /// channel is busy.
    private func mayRetry(_ header: MeshHeader) -> Bool {
        let c = configuration
        return header.origin == me || c.retryRelays || (c.retryRelaysWhenBusy && channelBusy)
    }

    private mutating func markSent(_ header: MeshHeader, in state: inout PacketState, now: Duration) {
        state.sent = header
        state.covered.insert(me)
        if header.hopsLeft > 0, !state.retried, mayRetry(header), downstreamUncovered(state) {
            let c = configuration
            let timeout = header.origin == me ? c.implicitAckTimeout : c.relayImplicitAckTimeout
            // Whole milliseconds (``RetrySchedule/share(_:of:)``): a driver that wakes the router
            // on a coarser clock than the draw (the simulator's microseconds) would otherwise
            // wake it just before the retry, again and again.
            let share = min(max(c.implicitAckRetryJitter, 0), 1)
            state.retryAt = now + timeout + (share > 0 ? RetrySchedule.share(share * retryRng.unit(), of: timeout) : .zero)
        } else {
            state.retryAt = nil
        }
    }

    // MARK: Timers

    /// The earliest time `due(now:)` has something to do.
    public var nextDeadline: Duration? {
        guard let hello = nextHelloAt else { return .zero }
        var earliest = hello
        if let followUp = followUpHelloAt, followUp < earliest { earliest = followUp }
        if let advert = nextTopologyAt, advert < earliest { earliest = advert }
        for at in advertAnswers.values where at < earliest { earliest = at }
        for lacked in lackedLists.values where lacked.nextAskAt < earliest { earliest = lacked.nextAskAt }
        for state in packets.values {
            if let r = state.relay, !r.emitted, r.at < earliest { earliest = r.at }
            if let t = state.retryAt, t < earliest { earliest = t }
        }
        return earliest
    }

    private static func milliseconds(_ d: Duration) -> Int64 {
        d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
    }

    /// Everything due by `now`: hellos, relays whose delay elapsed, implicit-ack retries;
    /// also forgets silent neighbours and old packets.
    public mutating func due(now: Duration) -> [RouterAction] {
        var actions: [RouterAction] = []
        let c = configuration
        if startedAt == nil { startedAt = now }
        if nextHelloAt == nil, c.firstHelloSpread > .zero {
            // Just started: the first hello waits its turn (``MeshRouterConfiguration/firstHelloSpread``).
            let spread = Int(Self.milliseconds(c.firstHelloSpread))
            nextHelloAt = now + .milliseconds(rng.int(in: 0...spread))
            if c.helloFollowsUpStart {
                // After every first hello of boxes started with us (``MeshRouterConfiguration/helloFollowsUpStart``).
                followUpHelloAt = now + c.firstHelloSpread + .milliseconds(rng.int(in: 0...spread))
            }
        }
        if nextHelloAt.map({ now >= $0 }) ?? true {
            actions.append(.sendHello)
            // Kept only while a follow-up may still compare against it.
            if followUpHelloAt != nil { listedInLastHello = Set(liveNeighbours(now: now).map(\.id)) }
            let jitter = Self.milliseconds(c.helloJitter)
            let offset = jitter > 0 ? rng.int(in: Int(-jitter)...Int(jitter)) : 0
            nextHelloAt = now + c.helloPeriod + .milliseconds(offset)
        } else if let followUp = followUpHelloAt, now >= followUp {
            followUpHelloAt = nil
            if liveNeighbours(now: now).allSatisfy({ listedInLastHello.contains($0.id) }) {
                counters.followUpHellosSkipped += 1
            } else {
                actions.append(.sendFollowUpHello)
                counters.followUpHellos += 1
            }
            listedInLastHello = []
        }
        for (id, n) in table where isExpired(n, now: now) {
            table[id] = nil
        }
        if c.topologyPlan { dueTopology(now: now, into: &actions) }
        if c.topologyPlan, c.topologyRepair { dueAdvertRepair(now: now, into: &actions) }
        for key in packets.keys.sorted() {
            guard var state = packets[key] else { continue }
            if now - state.firstSeen > c.packetMemory, state.relay == nil || state.relay?.emitted == true {
                packets[key] = nil
                continue
            }
            if let relay = state.relay, !relay.emitted, relay.at <= now {
                if relay.fallback || relay.planned || stillNeeded(state) {
                    state.relay?.emitted = true
                    counters.relaysSent += 1
                    if relay.planned { counters.plannedRelays += 1 }
                    let power = relay.fallback ? nil : relayPower(state)
                    markSent(relay.header, in: &state, now: now)
                    actions.append(.transmit(relay.header, powerDbm: power))
                } else {
                    state.relay = nil
                    counters.relaysCancelled += 1
                    actions.append(.cancelled(key))
                }
            }
            if let retryAt = state.retryAt, retryAt <= now {
                state.retryAt = nil
                if let sent = state.sent, !state.retried, downstreamUncovered(state) {
                    state.retried = true
                    counters.implicitAckRetries += 1
                    actions.append(.transmit(sent))
                }
            }
            packets[key] = state
        }
        return actions
    }

    /// Topology adverts: the first once the learning period is over, then one every
    /// `topologyPeriod`, or sooner — `topologyMinimumInterval` after the last — when the
    /// neighbour list changed. Old lists of other boxes are forgotten.
    private mutating func dueTopology(now: Duration, into actions: inout [RouterAction]) {
        let c = configuration
        topology.forget(olderThan: c.topologyMaxAge ?? c.topologyPeriod * 3, now: now)
        guard !isLearningNeighbours(now: now) else { return }
        if lastTopologyAt == nil, nextTopologyAt == nil {
            // The first advert at a random moment within the minimum interval: boxes that
            // start together (a power cut ends) do not all flood at once.
            let spread = Int(c.topologyMinimumInterval.components.seconds)
            nextTopologyAt = now + .seconds(spread > 0 ? rng.int(in: 0...spread) : 0)
        }
        // What the advert carries (at most `HelloPayload.maxNeighbours`, the best links), which
        // is what the other boxes plan on for us.
        var list: [NodeID: UInt8] = [:]
        for entry in topologyAdvert(now: now).neighbours { list[entry.id] = entry.bucket }
        if c.topologyFromHellos { topology.learn(me, hears: ownList(now: now), now: now) }
        if let last = lastTopologyAt {
            // Recomputed at every call: the period may have changed since the last advert.
            nextTopologyAt = advertOwed || changed(list, since: advertised) ? last + c.topologyMinimumInterval : last + c.topologyPeriod + topologyJitter
        }
        guard nextTopologyAt.map({ now >= $0 }) ?? true else { return }
        actions.append(.sendTopology)
        counters.topologyAdverts += 1
        lastTopologyAt = now
        advertOwed = false
        advertised = list
        topology.learn(me, hears: list, now: now)
        let jitter = c.topologyPeriod.components.seconds / 10
        topologyJitter = .seconds(jitter > 0 ? rng.int(in: Int(-jitter)...Int(jitter)) : 0)
        nextTopologyAt = now + c.topologyPeriod + topologyJitter
    }

    /// Whether our advert is out of date enough to send it before its period
    /// (``MeshRouterConfiguration/topologyAdvertsOnPlanChange``): a box we hear at a bucket the
    /// plan uses that the last advert did not list, or one it listed at such a bucket that we no
    /// longer hear at all.
    private func changed(_ list: [NodeID: UInt8], since advertised: [NodeID: UInt8]?) -> Bool {
        guard let advertised else { return true }
        guard configuration.topologyAdvertsOnPlanChange else { return list != advertised }
        let bucket = configuration.topologyMinimumBucket ?? configuration.minimumCoverBucket
        return list.contains { $0.value >= bucket && advertised[$0.key] == nil }
            || advertised.contains { $0.value >= bucket && list[$0.key] == nil }
    }

    /// Keeps at most `maxTrackedPackets` packet states (drops the oldest).
    private mutating func bound() {
        guard packets.count > configuration.maxTrackedPackets else { return }
        let oldest = packets.min { ($0.value.firstSeen, $0.key) < ($1.value.firstSeen, $1.key) }
        if let key = oldest?.key { packets[key] = nil }
    }
}
