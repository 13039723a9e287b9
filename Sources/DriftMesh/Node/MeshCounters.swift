/// What a mesh node (``MeshNodeMachine``) did with the frames it heard and sent, for `driftd mesh
/// status`, metrics and the simulator.
///
/// Every frame that is not used is counted under the reason it was dropped.
public struct MeshCounters: Sendable, Codable, Equatable {
    /// Frames the radio delivered to the mesh layer.
    public var heard = 0
    /// Frames that opened (authentic, this mesh).
    public var authentic = 0
    /// Dropped: not decodable (truncated, bad version, bad flags, …), by reason.
    public var malformed: [String: Int] = [:]
    /// Dropped: another mesh's network hint.
    public var foreign = 0
    /// Dropped: the authentication tag failed (forged or altered).
    public var forged = 0
    /// Dropped: a directed frame whose origin tag did not verify.
    public var originForged = 0
    /// Dropped: already in the seen-set (a relay's copy we did not need, or a replay).
    public var duplicates = 0
    /// Dropped: past its expiry (a replay of an old frame, or a box with a wrong clock).
    public var expired = 0
    /// Dropped: a hello whose public key does not hash to its sender, or a key change.
    public var badHello = 0
    /// Dropped: a hello without its key from a box whose key this box does not know (it sends
    /// its key again when our hello leaves it out).
    public var helloKeyUnknown = 0
    /// Hellos sent without our key (version 2): our neighbours know it.
    public var sentKeylessHellos = 0
    /// Hellos queued at normal priority because the one before had not gone on air when this
    /// one was due (``MeshNodeMachine/Settings/hellosWaitOnePeriodAtMost``); the one before was
    /// taken off the queue.
    public var hellosPromoted = 0
    /// The follow-up hello after this box's first, sent because it had heard neighbours that
    /// hello did not list (``MeshRouterConfiguration/helloFollowsUpStart``; the router counts it).
    public var followUpHellos = 0
    /// Messages handed to this box's applications.
    public var delivered = 0
    /// Frames sent: our own, relays, hellos, sync.
    public var sentOwn = 0
    public var sentRelays = 0
    public var sentHellos = 0
    public var sentSync = 0
    /// Relays planned and not sent because neighbours covered the packet meanwhile (dropped
    /// before their delay ran out, or taken back off the radio queue).
    public var relaysCancelled = 0
    /// Of those, late planned relays taken back when the radio was free
    /// (``MeshRouterConfiguration/topologyPlannedRelayLateCheckedBeforeSending``).
    public var lateRelaysTakenBack = 0
    /// Floods (broadcasts and other boxes' topology adverts) relayed because the topology plan
    /// named this box, and topology adverts this box sent (``MeshRouterConfiguration/topologyPlan``;
    /// the router counts both).
    public var plannedRelays = 0
    public var topologyAdverts = 0
    /// Advert repair (``MeshRouterConfiguration/topologyRepair``; the router counts both): our
    /// requests for topology lists we lacked, adverts we sent again for a neighbour that asked,
    /// and asks not answered because we had answered for that box a moment before.
    public var topologyRequests = 0
    public var topologyAnswers = 0
    public var topologyAnswersHeldOff = 0
    /// End-to-end retries of directed messages this box passed on again (counted when heard;
    /// some are then dropped for another box's copy, ``retryRelaysSuppressed``).
    public var retriesRelayed = 0
    /// Acknowledgements received for our directed messages.
    public var acksReceived = 0
    /// Digests and requests received, and frames sent to neighbours that missed them.
    public var digestsHeard = 0
    public var requestsHeard = 0
    public var framesResent = 0
    /// Catch-up copies taken off the queue (or out of their random delay) because another
    /// neighbour sent the packet first.
    public var resendsSuppressed = 0
    /// Packets a neighbour asked for again within two hello periods: those this box holds go
    /// out whatever copies it hears meanwhile (the copies that took our first answer back did
    /// not reach it).
    public var resendsAskedAgain = 0
    /// Requests sent again because a packet asked for did not come.
    public var requestsRepeated = 0
    /// Digests sent again because the last one's answers brought packets new to this box.
    public var digestFollowUps = 0
    /// Compact digests sent by paced repair (``MeshNodeMachine/Settings/pacedRepair``).
    public var compactDigestsSent = 0
    /// Digests and requests sealed again while they waited for the radio (the box held
    /// something new meanwhile), and requests taken off the queue because all they asked for
    /// came (``MeshNodeMachine/refreshQueuedSync(at:)``).
    public var syncRefreshed = 0
    public var requestsWithdrawn = 0
    /// Packets a neighbour's compact digest lacked that this box did not send it: its hello
    /// says it does not hear this box (`OneWay`), or it was sent them
    /// ``MeshNodeMachine/Settings/repairAnswersPerNeighbour`` times already (`Capped`); and
    /// those sent once more, the renewal period past since the last answer (`Renewed`).
    public var repairAnswersOneWay = 0
    public var repairAnswersCapped = 0
    public var repairAnswersRenewed = 0
    /// Packets renewed for a neighbour whose digest showed an earlier answer got there
    /// (``MeshNodeMachine/Settings/repairAnswersRenewedWhenHeard``).
    public var repairAnswersRenewedWhenHeard = 0
    /// Neighbours heard again after two hello periods without a hello that got no full digest:
    /// their compact digest came meanwhile (``MeshNodeMachine/Settings/PacedRepair/digestsNeighboursInRepair``).
    public var digestsLeftToRepair = 0
    /// Repeats of the full digest left out: every neighbour it was for sent a compact digest
    /// since (``MeshNodeMachine/Settings/PacedRepair/digestRepeatsForNeighboursInRepair``).
    public var digestRepeatsLeftToRepair = 0
    /// Neighbours heard for the first time (or again) that got no full digest of their own: one
    /// of ours was on its way, or went after the hello of ours they heard
    /// (``MeshNodeMachine/Settings/newNeighbourDigestsShared``).
    public var digestsShared = 0
    /// Full digests sent because a neighbour's compact digests kept listing something this box
    /// lacks (``MeshNodeMachine/PacedRepair/fullDigestWhenLackingAfter``).
    public var digestsForLacking = 0
    /// Compact digests sent although k consistent ones were heard, since a neighbour heard none
    /// of them (``MeshNodeMachine/PacedRepair/suppressionCoversNeighbours``).
    public var digestsForUnheardNeighbours = 0
    /// Compact digests the repair timer fired while the router counted no live neighbour, left
    /// out (``MeshNodeMachine/PacedRepair/digestsWhileAlone``).
    public var digestsAlone = 0
    /// Repair intervals that started twice as long as the timer's Imax, since this box had sent
    /// over ``MeshNodeMachine/PacedRepair/longerAboveBudgetShare`` of its airtime budget.
    public var repairIntervalsLonger = 0
    /// Directed frames after which the channel was kept free for the next hop's answer.
    public var answerWaits = 0
    /// Directed frames heard from a neighbour, for a box this one does not hear, after which it
    /// kept its frames back for that box's acknowledgement
    /// (``MeshNodeMachine/Settings/quietForHiddenAnswers``).
    public var hiddenAnswerWaits = 0
    /// Our directed messages to a neighbour sent again because its acknowledgement did not
    /// come when it should have (instead of after the outbox's 30 s).
    public var quickRetries = 0
    /// …and quick retries after the first left to the outbox because the channel was crowded
    /// when they were due (``MeshNodeMachine/Settings/quickRetryRounds``).
    public var quickRetriesBusy = 0
    /// Directed messages of other boxes relayed here to their destination, a neighbour, and
    /// sent once more because its acknowledgement was not heard when it should have been
    /// (``MeshNodeMachine/Settings/lastHopRetry``).
    public var lastHopRetries = 0
    /// …and those left to the origin because the channel was crowded when the retry was due
    /// (``MeshNodeMachine/Settings/lastHopRetryOnlyWhenQuiet``).
    public var lastHopRetriesBusy = 0
    /// Pieces of our directed messages sent again at once because the relay passed the
    /// message's other pieces on and not these (``MeshNodeMachine/Settings/missingPiecesResent``).
    public var piecesResent = 0
    /// Our directed messages to a box two hops away sent again because no neighbour was heard
    /// passing any piece on in time (``MeshNodeMachine/Settings/firstHopRetry``), and those
    /// left to the outbox because the channel was crowded then.
    public var firstHopRetries = 0
    public var firstHopRetriesBusy = 0
    /// First-hop and quick retries of our directed messages armed after their sending, when the
    /// way to the destination became known (``MeshNodeMachine/Settings/retriesArmedOnceTheWayIsKnown``).
    public var retriesArmedLate = 0
    /// Acknowledgements sent again for a directed message this box had already acknowledged,
    /// on hearing another copy of it.
    public var acksRepeated = 0
    /// …and copies of such a message heard from another relay of the same flood, not a retry,
    /// that got no acknowledgement again (``MeshNodeMachine/Settings/acksRepeatedForRetriesOnly``).
    public var acksNotRepeated = 0
    /// Retries of directed messages this box would have passed on but heard another box pass
    /// on first (``MeshNodeMachine/Settings/retryRelaysSuppressed``).
    public var retryRelaysSuppressed = 0
    /// Frames the transmit queue refused (budget) or dropped (full).
    public var queueRefused = 0
    public var queueDropped = 0
    /// Transmissions that failed at the radio.
    public var radioErrors = 0
    /// Frames a gateway brought in from other meshes, and those refused (one-hop control frames).
    public var bridgeHeard = 0
    public var bridgeRefused = 0

    public init() {}
}
