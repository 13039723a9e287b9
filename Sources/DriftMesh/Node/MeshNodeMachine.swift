import Foundation

/// A box's mesh node as a state machine: everything between the radio's bytes and the
/// applications, decided without reading a clock and without touching a radio or a thread.
///
/// The driver hands it inputs (``MeshNodeInput``: a frame heard, a message to send, a timer
/// due, the radio free, a channel-busy report) with the instant they happen at, and carries out
/// the actions it returns (``MeshNodeAction``: transmit, wake me at, deliver, confirm, bridge,
/// log). What must outlive the process goes to its ``MeshNodeMemory``. The daemon's `MeshNode`
/// actor drives it on the box's clock with `MeshStore`; `driftd sim mesh --node-machine` drives
/// one per simulated box on simulated time with ``InMemoryNodeMemory``; its tests drive it with
/// explicit instants.
///
/// Heard frames are opened with the network key (forged, altered, foreign and malformed frames
/// are dropped and counted), checked against the expiry and the seen-set (duplicates and
/// replays dropped and counted), held for neighbours that missed them, handed to the
/// ``MeshRouter`` (which decides relays, cancels redundant ones and delivers), reassembled and
/// delivered. Own messages go into the outbox before the first transmission (offline first);
/// directed ones are retried on the outbox's schedule until acknowledged. Hellos carry the
/// box's public key and neighbour list; a neighbour heard again after a while gets our digest
/// and catches up (``SyncDigest`` / ``SyncRequest``), as does every neighbour when the box
/// starts; answers wait a random delay and requests are repeated until answered. Every transmission goes through the
/// ``TransmitQueue``, which keeps the airtime budget of the region. Half duplex: the node keeps
/// quiet while a neighbour sends the rest of a fragmented message, and after a directed frame
/// that wants an answer (the quiet rule).
public struct MeshNodeMachine<Memory: MeshNodeMemory>: Sendable {
    /// What the node is told by the configuration.
    public struct Settings: Sendable {
        public var hopLimit: UInt8
        public var messageLifetime: TimeInterval
        public var modulation: LoRaModulation
        public var router: MeshRouterConfiguration
        public var maximumFrameBytes: Int
        /// A copy of a directed packet this box relayed, heard again at least this long after,
        /// is its origin's end-to-end retry (the outbox waits 30 s and more) and is relayed again.
        /// A copy straight from the origin (no hops taken) is relayed again whenever it comes.
        public var retrySpacing: Duration
        /// How long the next hop may take between hearing a directed frame and starting its
        /// answer (its acknowledgement or relay): its store writes sync before it answers.
        public var answerTurnaround: Duration
        /// Catch-up answers — the frames a neighbour's digest or request lacks, our request for
        /// what its digest lists, our digest for a neighbour heard again — wait a random time
        /// up to this many times the longest frame's airtime (uniform): two neighbours that
        /// cannot hear each other answered the same digest at the same instant and collided at
        /// the box that sent it (review finding 8). Two one-frame answers of 56 bytes overlap
        /// with a chance of about 2 × 0.68 s / 16 s ≈ 9 % at LongFast.
        public var answerWindowFrames: Int
        /// Requests per missing packet, the first included (``SyncRequestTracker``): a request
        /// whose answer did not come is repeated, its wait doubling each time.
        public var requestAttempts: Int
        /// The digest a box sends when it starts is sent again when its answers brought packets
        /// new to this box, once they had time to come, at most this many times in a row: an
        /// answer lost on the air is sent again (the box cannot ask for what it does not know
        /// exists).
        public var digestFollowUps: Int
        /// …and so is every full digest the box sends within two hello periods of its start
        /// (for a neighbour whose hello it hears, none of whom it knows yet) while no digest of
        /// its is being followed up; `false`: the start digest only (the rule before). In the
        /// simulator a box back from 30 minutes off, whose start digest was lost, got 9 of the 14
        /// packets it lacked in answer to the digest it sent for a neighbour's hello (one answer's
        /// burst), and its next digest was lost too: packets older than the compact digests'
        /// window are repaired by full digests only (docs/mesh-simulation.md, "Boxes back from an
        /// outage").
        public var digestsAfterStartFollowedUp = true
        /// A box sends its digest right after its first hello (and follows it up): neighbours
        /// that still count it as a neighbour — it was off for less than two hello periods —
        /// send it no digest of their own, so without this its catch-up waited for their
        /// hellos, up to a hello period.
        public var announcesAtStart: Bool
        /// A packet a neighbour asks for again within two hello periods — by a request, or by a
        /// full digest that lacks it once more — is sent it whatever copies this box hears
        /// meanwhile; `false`: a copy heard first takes it back, as the first answer (the rule
        /// before issue 19's outage runs; full digests count since its power-cut runs).
        public var answersRepeatedRequests = true
        /// A packet a neighbour's compact digest lacks counts as asked for, as by a request or
        /// a full digest (``answersRepeatedRequests``): lacked again within two hello periods,
        /// while no answer of ours to it still waits (a neighbour in paced repair digests every
        /// 30 s to 4 minutes, and under load answers wait longer for a clear channel), it is
        /// sent whatever copies this box hears meanwhile; `false`: a copy heard first takes
        /// every compact-digest answer back (the rule before). In the simulator a box back
        /// from an outage that only some of the boxes hearing it could reach lacked five packets
        /// for good: each of its digests was answered first by a box it did not hear, whose copies
        /// took back the answers of the two it did (docs/mesh-simulation.md, "Boxes back from an
        /// outage").
        public var compactLacksAskAgain = true
        /// A packet a neighbour's full digest or request lacks though this box heard another
        /// box send a catch-up copy of it well before (a copy of a packet held here for longer
        /// than ``MeshNodeMachine/catchUpCopyAge``, within two hello periods) counts as asked for
        /// again: that copy did not reach the neighbour, so it is sent whatever copies this box
        /// hears meanwhile; `false`: only the neighbour's own earlier asks count
        /// (``answersRepeatedRequests``). In the simulator a box back from an outage that could
        /// not hear the neighbour answering it first missed 14 packets for good: the one
        /// neighbour it heard lost its start digest, and when it heard the next one took its
        /// answer back for the copies of the box it did not hear, as before
        /// (docs/mesh-simulation.md, "Boxes back from an outage").
        public var lacksAfterCopiesAskAgain = true
        /// The digest repeated for a returning neighbour and the follow-ups of the start digest
        /// wait a random answer delay too; `false`: they go out when due (the rule before).
        /// Every neighbour that heard the same hello repeated its digest at the same instant,
        /// three hello periods later — in the simulator four full digests started together and
        /// collided at every box in range — and boxes that start together (a power cut of the
        /// whole mesh) followed their start digests up together.
        public var digestRepeatsDelayed = true
        /// An outbox with nothing waiting is looked at again with the next housekeeping (a
        /// minute at most), so an idle box wakes once a minute for both; `false`: a minute after
        /// the last look, at an instant of its own (the rule before; the simulator's runs found
        /// with it play out otherwise when the wake-ups move).
        public var outboxLooksWithHousekeeping = true
        /// When a box holds packets of more origins than a full digest describes (18), the
        /// origins described start at a random one; `false`: always the lowest node ids, so the
        /// packets of the others were never offered by a full digest (the rule before).
        public var digestOriginsRotate = true
        /// An answer sends at most ``MeshNodeMachine/framesPerAnswer`` held frames. When a
        /// neighbour lacks more, the frames this box has queued for it already do not count
        /// toward them, and they start at a random packet of those lacking; `false`: the first
        /// ones in key order, queued or not (the rule before). Every neighbour answering the
        /// same digest picked the same frames, so the copies it heard first took the others'
        /// back and a box back from an outage got one answer's worth per digest; and a
        /// follow-up digest sent while that answer was still queued brought nothing new.
        public var answersSpread = true
        /// Whether this box's background frames (hellos, digests, requests, catch-up copies)
        /// also wait while the channel is busy with catch-up traffic — theirs and other
        /// boxes' (``TransmitQueue/Settings/backgroundYieldsToBackground``, the rule before);
        /// `false`: only while it is busy with the rest (floods, hellos heard, frames it cannot
        /// read).
        public var backgroundYieldsToBackground = false
        /// A hello that is still waiting for the radio when the next one is due (the channel
        /// was busy for a whole hello period) is replaced by the next one, which goes at normal
        /// priority, ahead of the background class; `false`: every hello waits with the
        /// background frames (the rule before). Neighbours are forgotten after three hello
        /// periods without a hello: in the simulator 30 boxes under load for half an hour sent
        /// almost no hellos, and 15 minutes in the neighbour tables fell from 5.9 boxes to 1.2–1.9
        /// (docs/mesh-simulation.md, "Sustained load").
        public var hellosWaitOnePeriodAtMost = true
        /// Background frames wait while the channel was busier than this over the last minute
        /// (``TransmitQueue/Settings/backgroundUtilisationThreshold``: Meshtastic's polite 25 %).
        public var backgroundBusyThreshold = 0.25
        /// Paced repair while the mesh stays up (issue 19): a Trickle timer
        /// (``TrickleTimer``) sends a ``CompactDigest`` of what the box got lately, and
        /// neighbours send back what it lacks. `nil` (the default): off; the box still answers
        /// the compact digests it hears.
        public var pacedRepair: PacedRepair?
        /// A compact digest is judged only on packets this box got within the digest's window
        /// less this margin (the sender may have got them earlier)…
        public var compactDigestMargin: Duration = .seconds(600)
        /// A box that got more packets within the window than a compact digest lists (88)
        /// lists those of the last whole minutes that fit, under that shorter window, and the
        /// digest stays complete; `false`: the newest 88, marked incomplete (the rule before),
        /// from which a neighbour learns nothing of what the box lacks. A digest is judged with
        /// a margin of at most a third of its window either way.
        public var compactDigestWindowShrinks = true
        /// How our compact digests list their packets: Rice-coded (a Golomb-coded set, about
        /// 9.6 bits a packet), or 16-bit hashes (the coding before; both are read whatever this
        /// says). Rice-coded ones go out only while no compact digest of 16-bit hashes was
        /// heard for as long as the box remembers a neighbour: a box of an older build drops
        /// them as an unsupported version, and in a mesh being upgraded box by box it keeps
        /// reading ours. In the simulator a compact digest took about a second on air at
        /// LongFast, two bytes of it for each packet listed; Rice-coded, the digests' airtime
        /// fell 5–9 % (docs/mesh-simulation.md, "Shorter compact digests").
        public var compactDigestCoding: CompactDigest.Coding = .riceCoded
        /// …and has held this long (a packet still crossing the mesh is not missing yet).
        public var compactDigestSettle: Duration = .seconds(20)
        /// A packet a neighbour's compact digest lacks is sent to that neighbour at most this
        /// many times; a neighbour whose hello says it does not hear this box gets none.
        public var repairAnswersPerNeighbour = MeshNodeMachine.repairAnswersPerNeighbour
        /// …except that a hello listing nobody says only that its box has heard nobody yet —
        /// it just started — and such a neighbour's compact digests are answered (`false`: it
        /// counts as not hearing this box until its next hello, a hello period later; the rule
        /// before). In the simulator a box back from 30 minutes off, whose first hello listed
        /// nobody, went unanswered by the one neighbour it heard for that period and missed 8
        /// packets within 5 minutes (docs/mesh-simulation.md, "Boxes back from an outage").
        public var repairAnswersBoxesJustStarted = true
        /// A neighbour heard for the first time (or again after two hello periods) gets no full
        /// digest of its own when one of ours is already on its way (our start digest, still
        /// to come after our first hello, or one waiting out its delay or queued), or when its
        /// hello lists this box and our last full digest went out after our last hello — it
        /// heard that hello since it started, so it was listening when the digest went
        /// (`false`: a digest for each such neighbour, the rule before). Boxes that start
        /// together hear each other's first hellos within seconds, and each sent a full digest
        /// per neighbour heard: after a power cut of 30 boxes in the simulator the digests
        /// per run rose from 306 to 416 once the first hellos were spread
        /// (``MeshRouterConfiguration/firstHelloSpread``); with both rules the boxes back missed
        /// 6 packets within 5 minutes over 60 seeds instead of 30 (docs/mesh-simulation.md,
        /// "The restart storm").
        public var newNeighbourDigestsShared = true
        /// …and once more each time two hello periods have passed since the last (`false`:
        /// never again, the rule before). By then the neighbour's hellos have said again
        /// whether it hears this box; one that still lacks the packet and still lists this box
        /// was out of reach, not deaf: in the simulator a message whose
        /// origin had one neighbour, on a weak link to a busy box, lost both flood frames and
        /// both answers there and stayed with its origin for good (docs/mesh-simulation.md).
        public var repairAnswersRenewed = true
        /// …and once more at once when the neighbour's compact digest lists a packet this box
        /// answered it with that its digest before lacked: the answers get there, and a packet
        /// it still lacks was lost to collisions, not to a link that does not carry (`false`: only
        /// after the two hello periods, the rule before). In the simulator the one box joining
        /// two halves of a mesh sent a packet three times, all lost to collisions at the box
        /// beyond while its other answers got through, and half the mesh lacked it for the 10
        /// minutes the cap held (docs/mesh-simulation.md, "Boxes switched on one by one").
        public var repairAnswersRenewedWhenHeard = true

        /// How long after its last answer a capped packet is sent to the same neighbour
        /// again (``repairAnswersRenewed``): two hello periods, `nil` when not renewed.
        public var repairAnswerRenewal: Duration? {
            repairAnswersRenewed ? MeshNodeMachine.repairAnswerRenewal(helloPeriod: router.helloPeriod) : nil
        }

        /// How long past the moment an acknowledgement should have come (``quickRetryDelay``)
        /// a directed message is sent again, once: room for a box to finish a frame it was
        /// sending and for a slow store write. Default: the longest frame's airtime plus
        /// ``answerTurnaround`` (2.5 s at LongFast, 0.7 s at SF7).
        public var quickRetryMargin: Duration {
            get { quickRetryMarginSetting ?? LoRaAirtime.duration(payloadBytes: maximumFrameBytes, modulation: modulation) + answerTurnaround }
            set { quickRetryMarginSetting = newValue }
        }
        var quickRetryMarginSetting: Duration?
        /// A quick retry that would wait this long or longer is left to the outbox's schedule
        /// (its first wait: 30 s).
        public var quickRetryUnder: Duration = RetrySchedule.standard.initialDelay
        /// The quick retry is not an outbox attempt: the outbox's next attempt stays where its
        /// schedule put it, 30 s after the first sending. Before (`false`) the quick retry counted
        /// as the second attempt and the third waited 45 s after it, so a message whose quick
        /// retry was lost too came after 50–60 s: the bottles of 55–61 s on the real daemons'
        /// lossy line at SF7 (one in some 20–160 bottles, issue 19's seventh and eighth sessions).
        public var quickRetryKeepsSchedule = true
        /// How many quick retries a directed message has at most, each waiting for the
        /// acknowledgement again; those after the first only while the channel was no busier
        /// than ``backgroundBusyThreshold`` over the last minute (``lastHopRetryOnlyWhenQuiet``,
        /// the last-hop retry's gate; `quickRetriesBusy` counts those left to the outbox). On a
        /// quiet channel a lost frame is lost to a hidden box's frame or to noise, and the next
        /// try a second later most likely gets through; on a crowded one another frame adds to
        /// the collisions. 1: one quick retry, then the outbox's 30 s (the rule before) — on the
        /// real daemons' three-box line C's relay of B's chat line back to B and its quick retry
        /// were both lost at B to the frames of A, which C cannot hear, and the line came back
        /// 34 s later (issue 19's second session of 2026-12-07; docs/mesh.md, "Quick retry").
        public var quickRetryRounds = 2
        /// A box that relays a directed message to its destination's neighbourhood — the
        /// destination is a neighbour it hears — and hears no acknowledgement from it when one
        /// should have come (``MeshNodeMachine/quickRetryDelay(lastFrame:hops:)`` for one hop,
        /// plus ``quickRetryMargin``) sends the message's frames once more
        /// (``MeshCounters/lastHopRetries``). Only the origin retried before (`false`), and for a
        /// box two hops away it waited out the longest relay delay there and back: 9.4 s at SF7,
        /// and the outbox's 30 s at LongFast, where that wait is 51 s. The destination
        /// acknowledges a copy it already had again, so a lost acknowledgement is mended the
        /// same way (docs/mesh.md, "Last-hop retry").
        public var lastHopRetry = true
        /// …and how many times at most: after each retry the relay waits for the answer again.
        /// One by default: with three, a frame lost twice between the relay and the destination
        /// no longer waited for the origin's outbox (on the node machines' lossy line the slowest
        /// of 100 bottles took 25 s, not 39 s), but in the simulator under load they cost
        /// +39 ± 17 s of airtime per run at 30 boxes and −1.4 ± 0.7 points of broadcast reach at
        /// 50, for confirmations within the spread (docs/mesh-simulation.md, "A bottle's pieces
        /// and the first hop").
        public var lastHopRetryRounds = 1
        /// …but not while the channel was busier than ``backgroundBusyThreshold`` (25 %) over
        /// the last minute, the background frames' measure: there frames are lost to
        /// collisions. (The router's busy flag — 10 % over 30 s — was tried first: a single
        /// flood raises it; in the simulator the minute's 25 % let ten times as many retries
        /// go at 30 boxes for no measurable cost.)
        public var lastHopRetryOnlyWhenQuiet = true
        /// A directed message this box has acknowledged is acknowledged again only for a copy
        /// that is a retry: one straight from its origin, one from a box whose copy was heard
        /// before (it sent the message again: a last-hop retry, or the origin's retry passed on
        /// along the same path), or one heard ``retrySpacing`` or longer after the last
        /// acknowledgement (an end-to-end retry on the outbox's schedule, by any path) — and in
        /// each case not within ``quickRetryMargin`` of the last acknowledgement, when the
        /// relays that pass one retry on come together. The other copies are the flood's own —
        /// a directed message is flooded, and a box in the middle of the mesh hears it from
        /// several relays — and each acknowledgement is a new packet flooded back (`false`:
        /// every copy is acknowledged again, the rule before: 45.9 acknowledgements sent again
        /// per run of 20 messages, half of them directed, at 30 boxes in the simulator;
        /// docs/mesh.md, "Quick retry").
        public var acksRepeatedForRetriesOnly = true
        /// A relay passes a directed message's retry on after a random delay of up to the
        /// router's jitter (``MeshRouterConfiguration/jitterSlots`` slots: 4.9 s at LongFast),
        /// not at once (`false`, the rule before). The boxes that relayed the message hear the
        /// retry at the same instant: two of them side by side between origin and destination
        /// went on air together and collided at the destination at every retry — in the
        /// simulator's four-box line a message whose first acknowledgement was lost was never
        /// confirmed (docs/mesh.md, "Quick retry").
        public var retryRelaysJittered = true
        /// …and a relay whose destination is not its neighbour drops its copy of the retry
        /// when it hears another box pass it on first (`retryRelaysSuppressed` counts them).
        public var retryRelaysSuppressed = true
        /// The origin of a directed message of several pieces to a box beyond its neighbours
        /// listens for its relay passing the pieces on — back to back
        /// (``MeshRouterConfiguration/relayPiecesTogether``) — and sends once more, at once, a
        /// piece it did not hear passed on by the time it should have followed the others
        /// (their airtime and turnaround, plus ``quickRetryMargin``; ``MeshCounters/piecesResent``).
        /// A piece lost between the origin and the relay left the relay holding half a bottle
        /// that it never passed on whole, so nobody answered and the origin waited for the
        /// outbox's 30 s (at LongFast; the two-hop quick retry's 9.4 s at SF7), and then sent
        /// every piece again (`false`, the rule before). On a message's first sending only
        /// (docs/mesh.md, "Missing pieces"), at most ``missingPiecesRounds`` times.
        public var missingPiecesResent = true
        /// …and how many times at most: a piece sent again is listened for in turn — the relay
        /// passes a late piece on at once — and sent once more when it was not heard passed on
        /// by the end of its frame, the relay's copy, the turnaround and ``quickRetryMargin``.
        /// With one round (the rule before) a piece lost twice between the origin and the relay
        /// (two of 40 bottles on the real daemons' line at 10 % loss) waited for the two-hop
        /// quick retry (9.4 s at SF7) or the outbox (30 s at LongFast).
        public var missingPiecesRounds = 3
        /// …and the origin of a directed message to a box two hops away — a neighbour's hello
        /// lists it — that hears no piece passed on by the time the slowest of those neighbours
        /// would have passed the first on (its place in the relay order and the relay jitter:
        /// ``MeshNodeMachine/firstRelayBound(toward:)``, then that piece's airtime, the
        /// turnaround and ``quickRetryMargin``) sends the message once more
        /// (``MeshCounters/firstHopRetries``): nobody got it, or this box lost every copy passed
        /// on. Not while the channel is busier than ``backgroundBusyThreshold`` over the last
        /// minute (``lastHopRetryOnlyWhenQuiet``, the last-hop retry's gate). Before (`false`),
        /// a message lost on its first hop waited for the outbox's 30 s at LongFast (for the
        /// two-hop quick retry's 9.4 s at SF7). Once per message, on its first sending.
        public var firstHopRetry = true
        /// A directed message of ours whose last frame went on the air while this box knew no
        /// way to its destination — no neighbour's hello listed it and none of its frames had
        /// been heard lately — has neither a first-hop retry nor a quick retry; with this on,
        /// each is armed as soon as the way is learned (a neighbour's hello listing the box, a
        /// frame from it), timed from that sending as it would have been then, while the sending
        /// is less than ``quickRetryUnder`` old (``MeshNodeMachine/armRetriesOnceTheWayIsKnown(at:)``,
        /// ``MeshCounters/retriesArmedLate``). Before (`false`), such a message lost on its first
        /// hop waited for the outbox's 30 s: on the real daemons' three-box line, A's message to
        /// C sent 2 s after the boxes started, before B's hello listed C, in 2 of 6 runs
        /// (issue 19, 2026-12-08; docs/mesh.md, "Retries armed once the way is known").
        public var retriesArmedOnceTheWayIsKnown = true
        /// The first-hop, quick and last-hop retries of a directed message wait up to this share
        /// of their wait longer, drawn at random for each (``MeshNodeMachine/jitteredRetry(_:)``);
        /// the outbox's schedule up to ``outboxRetryJitter`` of its delay. Two boxes hidden from
        /// each other, heard by the same relay, whose messages went out together — the second
        /// sent in answer to what brought the first — lost them to each other at the relay and,
        /// on exact waits, sent again at the same instants and collided at every retry: on the
        /// real daemons' three-box line a watch from A to C and C's notice to A, 55 bytes each,
        /// went out together five times over 78 s and never got through (issue 19, 2026-12-07;
        /// docs/mesh.md, "Retries drawn apart"). 0: the exact waits (the rule before).
        public var retryJitter = 0.5
        /// …and the outbox's next attempt after each transmission of a directed message: the
        /// schedule's delay (30 s × 1.5ⁿ) plus up to this share of it, drawn at random.
        public var outboxRetryJitter = 0.25
        /// A box that hears a neighbour send the last frame of a directed message that wants an
        /// acknowledgement, to a box it does not hear itself but the neighbour's hello lists,
        /// holds its own frames until that answer is over: the turnaround, the ack's airtime and
        /// the quiet back-off's window, then 1…4 slots drawn (``MeshNodeMachine/answerHeldUntil``,
        /// which listen before talk reads; relays of other boxes' data keep their slot, as for
        /// the quiet back-off; ``MeshCounters/hiddenAnswerWaits``) — the network allocation
        /// vector of 802.11, for the one answer that follows at once. Carrier sense cannot hear
        /// a box out of range: a frame this box took while the neighbour sent went out a few
        /// slots after its end, as the hidden destination's acknowledgement did, and the two
        /// collided at the neighbour (`false`: the rule before). On the real daemons' three-box
        /// line A — B — C, C's relay of B's chat line back to B and its quick retry were lost so
        /// at B, and the line came back after the outbox's 30–75 s in 7 of 20 runs (issue 19's
        /// sessions of 2026-12-07; docs/mesh.md, "Quiet for a hidden answer").
        public var quietForHiddenAnswers = true

        public init(hopLimit: UInt8, messageLifetime: TimeInterval, modulation: LoRaModulation,
                    router: MeshRouterConfiguration, maximumFrameBytes: Int = MeshFrame.maxBytes,
                    retrySpacing: Duration = .seconds(15), answerTurnaround: Duration = .milliseconds(500),
                    answerWindowFrames: Int = 8, requestAttempts: Int = 4, digestFollowUps: Int = 2, announcesAtStart: Bool = true) {
            self.announcesAtStart = announcesAtStart
            self.answerWindowFrames = answerWindowFrames
            self.requestAttempts = requestAttempts
            self.digestFollowUps = digestFollowUps
            self.retrySpacing = retrySpacing
            self.answerTurnaround = answerTurnaround
            self.hopLimit = hopLimit
            self.messageLifetime = messageLifetime
            self.modulation = modulation
            self.router = router
            self.maximumFrameBytes = maximumFrameBytes
        }
    }

    /// The Trickle timer of paced repair and the window of its digests.
    public struct PacedRepair: Sendable, Hashable {
        /// Imin, the doublings to Imax, and k (consistent digests heard that suppress ours).
        /// k = 3 since paced repair became the daemon's default: with k = 1 boxes of a patch
        /// that all missed a packet heard each other's digests as consistent and stayed quiet
        /// (in the simulator 0.976–0.986 of connected boxes held a broadcast within 5 minutes
        /// under load on tuning seeds; 0.990–0.996 with k = 3, for 8–13 % more airtime;
        /// docs/mesh-simulation.md). Three doublings (Imax 4 minutes, a digest drawn in its
        /// second half): with four (8 minutes) a box that held a new packet could list it in its
        /// digest only 4–12 minutes after it came when it came just after its digest, and
        /// 0.92–0.998 of connected boxes held a broadcast within 5 minutes depending on when the
        /// messages started; with three 0.993–1.000 whenever they did, for 2–21 % more airtime.
        public var minimumInterval: Duration
        public var doublings: Int
        public var redundancy: Int
        /// A compact digest lists the packets the box got within this window.
        public var window: Duration
        /// A box that hears a digest listing something it lacks sends its next digest however
        /// many consistent ones it hears first (``TrickleTimer/inconsistent(now:mustSend:)``).
        public var lackingUnsuppressed: Bool
        /// A neighbour heard again after two hello periods without a hello gets our full digest
        /// even when its compact digest came within them (`false`, the default: it is in paced
        /// repair with us, only its hellos were lost, and the full digest is left out; see
        /// `MeshNodeMachine.heardHello`). `true` is the rule before, for comparison in the simulator.
        public var digestsNeighboursInRepair: Bool
        /// The full digest's repeat three hello periods after a neighbour was heard again (or
        /// for the first time) goes out even when every neighbour it was for has sent a compact
        /// digest since (`false`, the default: they are in paced repair with us, and the repeat
        /// is left out and counted, ``MeshCounters/digestRepeatsLeftToRepair``). `true` is the
        /// rule before, for comparison in the simulator.
        public var digestRepeatsForNeighboursInRepair: Bool
        /// A box whose neighbour's compact digests have listed something it lacks for this long
        /// sends its full digest (at most once a hello period), which the neighbour answers with
        /// all it lacks — also what compact-digest answers leave out: what the neighbour
        /// remembers from before it started (never pushed, its clock may be wrong) and packets
        /// it got before their window. `nil`: compact digests only (the rule before). In the
        /// simulator, after a power cut of the whole mesh, a message whose origin had one
        /// neighbour stayed with it for good: the neighbour heard the origin's compact digests
        /// list it again and again and could not ask for it (docs/mesh-simulation.md).
        public var fullDigestWhenLackingAfter: Duration?
        /// The k consistent digests keep ours back only when every neighbour that hears this box
        /// heard one of them too, by its last hello (``MeshRouter/everyNeighbourHears(oneOf:now:)``):
        /// a box joining two patches heard digests from its own side alone, the neighbour beyond
        /// from its side alone, and both stayed quiet while one side lacked what the other held.
        /// `false`: any k suppress it (the rule before, for comparison in the simulator).
        public var suppressionCoversNeighbours: Bool
        /// A digest the timer fires after the router has counted no live neighbour for as long
        /// as it remembers one (three missed hellos: about 16 minutes on the board, from the
        /// start or from the last neighbour's expiry) goes out anyway (`false`, the default: it
        /// is left out and counted, ``MeshCounters/digestsAlone``). By then any neighbour in
        /// range would have been heard; a box alone has nobody to answer its digest, and one
        /// that meets a neighbour shares a full digest with it then (catch-up). A lone box sent
        /// one every two to four minutes for good: beside its hellos, half its frames on the
        /// air, and each a wake-up on a box nobody uses (docs/performance.md, "Idle"). Within
        /// that first while digests go out as before: a box that starts again among neighbours
        /// it does not know yet is answered what it lacks. `true` is the rule before, for
        /// comparison in the simulator. Nor does the timer wake the box meanwhile: its intervals are
        /// caught up at the next wake (the housekeeping beat, a minute at most), and a digest
        /// that fell due goes out then if a neighbour has come (``MeshNodeMachine/repairTimerSleeps(at:)``).
        public var digestsWhileAlone: Bool
        /// In a duty-cycled band: while this box has sent more than this share of its airtime
        /// budget's limit over the budget's window (an hour), its intervals double once more
        /// (Imax 8 minutes instead of 4), and back when it has sent less. `nil`: never (the rule
        /// before). Where the budget binds, the digests every 4 minutes took the airtime the
        /// catch-up answers waited for: on the E22's 2.4 kbps in a 1 % band at 72–90 messages an
        /// hour across the mesh, 0.937 / 0.959 / 0.941 of connected boxes held a broadcast within
        /// 5 minutes at 20 / 30 / 50 boxes (docs/mesh-simulation.md, "Repair within a tight
        /// budget"). With no budget limit (the US band) the share is 0 and nothing changes.
        public var longerAboveBudgetShare: Double?

        public init(minimumInterval: Duration = .seconds(30), doublings: Int = 3, redundancy: Int = 3,
                    window: Duration = .seconds(30 * 60), lackingUnsuppressed: Bool = false, digestsNeighboursInRepair: Bool = false,
                    fullDigestWhenLackingAfter: Duration? = .seconds(120), suppressionCoversNeighbours: Bool = true,
                    digestsWhileAlone: Bool = false, longerAboveBudgetShare: Double? = 0.5,
                    digestRepeatsForNeighboursInRepair: Bool = false) {
            self.digestRepeatsForNeighboursInRepair = digestRepeatsForNeighboursInRepair
            self.longerAboveBudgetShare = longerAboveBudgetShare
            self.digestsWhileAlone = digestsWhileAlone
            self.suppressionCoversNeighbours = suppressionCoversNeighbours
            self.fullDigestWhenLackingAfter = fullDigestWhenLackingAfter
            self.minimumInterval = minimumInterval
            self.doublings = doublings
            self.redundancy = redundancy
            self.window = window
            self.lackingUnsuppressed = lackingUnsuppressed
            self.digestsNeighboursInRepair = digestsNeighboursInRepair
        }
    }

    /// Why a message cannot be sent.
    public struct SendError: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// The most held frames one catch-up answer queues (about 22 s on air at LongFast for
    /// one-frame messages): what a neighbour lacks beyond them comes with its next digest or
    /// request.
    static var framesPerAnswer: Int { 32 }

    /// A copy of a packet heard this long after the router first saw it is catch-up, not the
    /// flood (``isCatchUpTraffic(_:at:)``).
    static var catchUpCopyAge: Duration { .seconds(30) }

    /// ``Settings/repairAnswersPerNeighbour``'s default, also the simulator's repair model's.
    public static var repairAnswersPerNeighbour: Int { 2 }

    /// How long after its last answer a capped packet goes to the same neighbour again
    /// (``Settings/repairAnswersRenewed``): two hello periods. Also the simulator's repair model's.
    public static func repairAnswerRenewal(helloPeriod: Duration) -> Duration { helloPeriod * 2 }

    /// The most hops a frame header can carry (`hopStart` is a 3-bit value on the wire).
    public static var maximumHopLimit: UInt8 { 7 }

    public let me: NodeID
    public internal(set) var settings: Settings
    /// Where the seen-set, outbox, held frames, packet ids and peers live.
    public internal(set) var memory: Memory
    /// While set, every authentic broadcast, directed and ack frame heard on the radio, and
    /// this box's own as they are queued, is handed out as ``MeshNodeAction/bridge(_:)``.
    public var bridging = false

    let keyPair: BoxKeyPair
    let sealer: MeshSealer
    var router: MeshRouter
    var reassembler = Reassembler()
    var keyring = PeerKeyring()
    var queue: TransmitQueue
    var counters = MeshCounters()
    /// Sealed frames of packets the router may still relay, by key.
    var relayable: [PacketKey: (frame: [UInt8], expires: Duration)] = [:]
    /// The latest topology advert of every box (ours included), as first heard: what advert
    /// repair sends again for a neighbour that asks (``MeshRouterConfiguration/topologyRepair``).
    /// One frame per box, replaced by its next advert.
    var advertFrames: [NodeID: (key: PacketKey, frame: [UInt8])] = [:]
    /// Beyond this many advert frames, those of boxes the router no longer knows are dropped.
    static var advertFramesKept: Int { 256 }
    /// Our own frames waiting for the router's `.transmit`, by key.
    var ownFrames: [PacketKey: (frame: [UInt8], outbox: PacketKey, priority: TransmitPriority)] = [:]
    /// Directed packets this box relayed, with when it last did: their end-to-end retries are relayed again.
    var relayedDirected: [PacketKey: Duration] = [:]
    /// Directed packets for others this box heard but did not relay, with when: see ``relayedDirected``.
    var heardDirected: [PacketKey: Duration] = [:]
    /// Relay and catch-up copies still waiting for the radio: packet → queue id, and back.
    var queuedCopies: [PacketKey: UInt64] = [:]
    var queuedCopyKeys: [UInt64: (key: PacketKey, catchUp: Bool)] = [:]
    /// Directed messages delivered here, by first packet key: a retry of one is acknowledged again.
    var acknowledged = OrderedKeys()
    /// Directed messages for this box, by first packet key: the short ids of the boxes whose
    /// copies were heard, when the first was, and when this box last acknowledged the message
    /// (``Settings/acksRepeatedForRetriesOnly``); forgotten after the outbox's hour.
    var copiesToMe: [PacketKey: (senders: Set<UInt8>, since: Duration, ackedAt: Duration?)] = [:]
    /// When each neighbour was last sent our digest.
    var lastDigestTo: [NodeID: Duration] = [:]
    /// When the digest sent for a returning neighbour is repeated once: the exchange is single
    /// frames without acknowledgement, and one lost frame must not lose the catch-up.
    var digestRepeatAt: Duration?
    /// The neighbours the repeat is for, with when each was heard again.
    var digestRepeatFor: [NodeID: Duration] = [:]
    /// Catch-up answers waiting out their random delay, in the order they were decided.
    var deferred: [DeferredAnswer] = []
    /// Packets asked for and not heard yet: asked for again when their answer does not come.
    var requests: SyncRequestTracker
    /// Whether this start's digest went out (after the first hello): a box that restarts tells
    /// its neighbours what it holds at once, as they may still count it as a neighbour.
    var announced = false
    /// When this start's digest went out (``Settings/digestsAfterStartFollowedUp``).
    var announcedAt: Duration?
    /// Hellos sent since the machine started.
    var hellosSent = 0
    /// When our last hello and our last full digest were queued (``Settings/newNeighbourDigestsShared``).
    var lastHelloQueuedAt: Duration?
    var lastFullDigestQueuedAt: Duration?
    /// The queue id of our last hello until it goes on air (``Settings/hellosWaitOnePeriodAtMost``).
    var queuedHello: (id: UInt64, keyed: Bool)?
    /// When each neighbour last sent a hello without its key (so it reads them), and the keyed
    /// hellos sent while a neighbour's hello leaves this box out (`helloCarriesKey(at:)`).
    var keylessHelloFrom: [NodeID: Duration] = [:]
    var keyedHellosWhileDeaf: [NodeID: Int] = [:]
    /// The answers to the digest sent at start (or its follow-up), counted until `until`: when
    /// some brought packets new to us, the digest goes out again then (``Settings/digestFollowUps``).
    var digestWatch: (until: Duration, newPackets: Int, followUps: Int)?
    /// The answers' random delays.
    var rng: MeshRandom
    /// The retries' random extra waits (``Settings/retryJitter``): a stream of its own, so the
    /// draws of the answers and the router stay what they were.
    var retryRng: MeshRandom
    /// Our digests and requests waiting for the radio, by queue id: each is sealed again before
    /// a frame goes on air when we held something new since (``refreshQueuedSync(at:)``).
    var queuedSync: [UInt64: QueuedSync] = [:]
    /// Counts the packets held for the first time: a queued digest composed at another count
    /// may leave out what we hold now.
    var heldGeneration = 0
    /// Packets this box got lately (heard, or its own), with when: what its compact digest
    /// lists (`listed`; its own directed messages are not held, so not listed) and what it
    /// checks a neighbour's compact digest against (not those `remembered` from before a
    /// restart: their times come from a wall clock that may have been wrong since).
    var recentPackets: [PacketKey: (at: Duration, listed: Bool, remembered: Bool)] = [:]
    /// Whether `recentPackets` was filled from the held frames (at the first input): a box
    /// that starts again still knows what it got lately.
    var recentRemembered = false
    /// Paced repair's timer, started at the first timer input (``Settings/pacedRepair``).
    var repairTimer: TrickleTimer?
    /// Since when the router has counted no live neighbour (from the first timer input at a
    /// start); `nil` while it counts one (``PacedRepair/digestsWhileAlone``).
    var aloneSince: Duration?
    /// When each neighbour's compact digest was last heard: it runs paced repair with us.
    var compactDigestHeardAt: [NodeID: Duration] = [:]
    /// When an unmarked compact digest of 16-bit hashes was last heard: a neighbour of an older
    /// build, which cannot read Rice-coded ones (``Settings/compactDigestCoding``;
    /// ``CompactDigest/marksFallback``).
    var hashes16HeardAt: Duration?
    /// Since when each neighbour's compact digests have listed something this box lacks
    /// (``PacedRepair/fullDigestWhenLackingAfter``), and when our last full digest for that went out.
    var lackingSince: [NodeID: Duration] = [:]
    var lackingDigestAt: Duration?
    /// When each neighbour last asked us for each packet (its requests), for two hello periods
    /// and at most ``requestsRememberedPerNeighbour`` packets each (``heardRequest``).
    var requestedBy: [NodeID: [PacketKey: Duration]] = [:]
    static var requestsRememberedPerNeighbour: Int { 256 }
    /// When another box's catch-up copy of each packet was last heard — a copy of a packet this
    /// box had held for longer than ``catchUpCopyAge`` — for two hello periods and at most
    /// ``catchUpCopiesRemembered`` packets (``Settings/lacksAfterCopiesAskAgain``).
    var catchUpCopyHeardAt: [PacketKey: Duration] = [:]
    static var catchUpCopiesRemembered: Int { 1_024 }
    /// Since when each neighbour has been up as far as this box can tell, and when it last heard
    /// a frame the neighbour sent itself: a copy heard before that could not reach it (it was
    /// off), whatever its digest lacks (``Settings/lacksAfterCopiesAskAgain``). A neighbour heard
    /// again after two hello periods of silence may have been up for a hello period already
    /// (this box lost its first hello: a box sends one when it starts and one a period later);
    /// one whose hello lists nobody just started, and is up since that hello.
    var heardUpSince: [NodeID: (since: Duration, last: Duration)] = [:]
    /// How often this box answered each neighbour's compact digest with each packet it lacked
    /// (``answerable(_:to:at:)``); forgotten with the packet.
    var repairAnswers = RepairAnswerTally<NodeID>()
    /// Packets each neighbour was answered with (its compact digest lacked them) that its
    /// digests have not listed since (``Settings/repairAnswersRenewedWhenHeard``).
    var answersUnconfirmed: [NodeID: Set<PacketKey>] = [:]
    /// Our directed messages whose last frame has not gone out yet or whose acknowledgement from
    /// a neighbour is awaited, with when they were handed out: the quick retry sends them again.
    var awaitingAck: [PacketKey: (entry: MeshDueMessage, since: Duration)] = [:]
    /// When each of those is sent again if its acknowledgement has not come.
    var quickRetryAt: [PacketKey: Duration] = [:]
    /// Our directed messages whose last frame went on the air while this box knew no way to
    /// their destination, by their first key: their retries wait for the way
    /// (``Settings/retriesArmedOnceTheWayIsKnown``).
    var retriesAwaitingWay: [PacketKey: RetriesAwaitingWay] = [:]
    /// Messages that had their last quick retry (``Settings/quickRetryRounds``).
    var quickRetried = OrderedKeys()
    /// The quick retries made so far of messages that may have more; a message leaves when it
    /// has none left, or is acknowledged.
    var quickRounds: [PacketKey: Int] = [:]
    /// Directed messages of other boxes that we relayed to their destination, a neighbour, by
    /// their first key: when their frames go once more if no acknowledgement from the
    /// destination is heard (``Settings/lastHopRetry``), to whom, the last frame this box
    /// passed on as it went on air and which piece it is, and how many frames the message has.
    var lastHopRetryAt: [PacketKey: (due: Duration, destination: NodeID, lastFrame: [UInt8], lastIndex: Int, frames: Int)] = [:]
    /// Messages that had their last-hop retry (one each), and acknowledgements heard for
    /// messages of other boxes (their first keys): a relay going out after the destination
    /// answered waits for nothing.
    var lastHopRetried = OrderedKeys()
    /// The last-hop retries made so far of messages that may have more
    /// (``Settings/lastHopRetryRounds``); a message leaves when it has none left, or its
    /// acknowledgement is heard.
    var lastHopRounds: [PacketKey: Int] = [:]
    var acksHeard = OrderedKeys()
    /// Our directed messages whose relay we listen for (``Settings/missingPiecesResent``,
    /// ``Settings/firstHopRetry``), by their first key: their frames, the pieces heard passed
    /// on, when those not heard are sent again (once a piece was) or the whole message (while
    /// none was), and when the message went out.
    var piecesPassedOn: [PacketKey: OwnPieces] = [:]
    /// Messages that had their pieces sent again or were sent again whole (their relays pass
    /// retries on each after its own delay, not back to back): not listened for again.
    var piecesDone = OrderedKeys()
    /// Retries of directed messages to pass on, each when its random delay is over
    /// (``Settings/retryRelaysJittered``).
    var retryRelaysDue: [(at: Duration, key: PacketKey, frame: [UInt8], nextToDestination: Bool)] = []
    /// How far each box is, from the frames it originated that we heard (hops taken + 1, the
    /// fewest lately), and when that was: a box heard straight from it is in range even when
    /// its hello was lost (one hello per 5 minutes on the board); the quick retry waits for the
    /// relays of a box further away.
    var distances: [NodeID: (hops: Int, at: Duration)] = [:]
    var nextFrameID: UInt64 = 1
    /// Until when a neighbour is expected to keep the channel (the remaining fragments of a
    /// message we are hearing, or the answer to a directed frame we sent): our own
    /// transmissions wait.
    var quietUntil: Duration = .zero
    /// Until when a hidden box's acknowledgement of a neighbour's directed frame may be on the
    /// air (``Settings/quietForHiddenAnswers``): the driver's listen before talk holds this
    /// box's own frames until then (not its relays of other boxes' data, ``QuietBackOff``) — a
    /// frame it took while the neighbour's was on the air too, which would otherwise go out a
    /// few slots after its end, as the answer does.
    public internal(set) var answerHeldUntil: Duration = .zero
    var nextHousekeeping: Duration = .zero
    var nextOutboxCheck: Duration = .zero
    /// Whether the outbox may hold a message waiting: at the start (one may be left from
    /// before), after a send, and while the last look found one. Only this machine puts
    /// messages there, so after a look that found none the housekeeping beat skips the look
    /// and its two database transactions until the next send.
    var outboxMayHoldWork = true
    /// The actions of the input being handled, in order.
    var actions: [MeshNodeAction] = []

    /// A node for `keyPair` on the mesh of `networkKey`. It trusts the keys `memory` remembers;
    /// `seed` drives the router's random delays.
    public init(keyPair: BoxKeyPair, networkKey: [UInt8], memory: Memory, budget: AirtimeBudget, settings: Settings,
                seed: UInt64) throws {
        self.keyPair = keyPair
        self.me = keyPair.nodeID
        self.sealer = try MeshSealer(networkKey: networkKey)
        self.memory = memory
        self.settings = settings
        self.router = MeshRouter(me: keyPair.nodeID, configuration: settings.router, seed: seed)
        self.queue = TransmitQueue(budget: budget, settings: .init(backgroundUtilisationThreshold: settings.backgroundBusyThreshold,
                                                                backgroundYieldsToBackground: settings.backgroundYieldsToBackground))
        self.requests = SyncRequestTracker(maximumAttempts: max(1, settings.requestAttempts))
        self.rng = MeshRandom(seed: seed ^ 0x6361_7463_6875_7021)
        self.retryRng = MeshRandom(seed: seed ^ 0x7265_7472_795F_6A69)
        self.announced = !settings.announcesAtStart
        for peer in (try? memory.rememberedPeers()) ?? [] {
            _ = keyring.learn(nodeID: peer.node, publicKey: peer.publicKey)
        }
    }

    /// Handles one input at `now`; returns what the driver must do, in order.
    public mutating func handle(_ input: MeshNodeInput, at now: MeshNodeTime) -> [MeshNodeAction] {
        actions = []
        if !recentRemembered { rememberRecent(at: now) }
        // Read only by the plan's advert floods (``MeshRouterConfiguration/topologyFloodBudgetShare``):
        // not summed over the budget's records at every input of a box without the plan.
        if router.configuration.topologyPlan { router.budgetUsedShare = queue.budget.usedFraction(now: now.monotonic) }
        switch input {
        case .heard(let bytes, let rssi, let snr):
            _ = process(bytes, link: LinkQuality(rssi: rssi, snr: snr), fromBridge: false, at: now)
        case .bridged(let bytes):
            counters.bridgeHeard += 1
            let verdict = process(bytes, link: LinkQuality(rssi: -60, snr: 10), fromBridge: true, at: now)
            actions.append(.verdict(verdict))
        case .send(let message):
            do {
                actions.append(.stored(try send(message, at: now)))
            } catch {
                actions.append(.refused(error))
            }
        case .timer:
            actions.append(.wake(at: timersDue(at: now)))
        case .radioIdle:
            nextTransmission(at: now)
        case .transmitFailed:
            counters.radioErrors += 1
        case .channelBusy(let busy):
            router.channelBusy = busy
        case .channelUtilisation(let share):
            router.channelUtilisation = share
        }
        let out = actions
        actions = []
        return out
    }

    // MARK: Timers

    /// How often the node forgets what expired (the reassembler, its tables, the store's
    /// seen-set, held frames and outbox), and looks at an outbox with nothing waiting.
    static var housekeepingPeriod: Duration { .seconds(60) }

    /// Runs everything due (router timers, outbox, housekeeping); returns the next instant
    /// anything is due.
    mutating func timersDue(at now: MeshNodeTime) -> Duration {
        let t = now.monotonic
        if !retriesAwaitingWay.isEmpty { armRetriesOnceTheWayIsKnown(at: t) }
        apply(router.due(now: t), at: now)
        if let repeatAt = digestRepeatAt, t >= repeatAt {
            digestRepeatAt = nil
            let forWhom = digestRepeatFor
            digestRepeatFor = [:]
            if repeatLeftToRepair(for: forWhom) {
                counters.digestRepeatsLeftToRepair += 1
            } else if settings.digestRepeatsDelayed {
                deferAnswer(.digest, at: now)
            } else {
                sendDigest(at: now)
            }
        }
        catchUpDue(at: now)
        repairDue(at: now)
        quickRetryDue(at: now)
        lastHopRetryDue(at: now)
        missingPiecesDue(at: now)
        passRetriesOn(at: t)
        var outboxWaiting: Bool?
        if t >= nextOutboxCheck {
            outboxWaiting = false
            if outboxMayHoldWork {
                serviceOutbox(at: now)
                let count = try? memory.waitingOutgoingCount()
                outboxMayHoldWork = count.map { $0 > 0 } ?? true  // unreadable: look again
                outboxWaiting = (count ?? 0) > 0
            }
        }
        if t >= nextHousekeeping {
            nextHousekeeping = t + Self.housekeepingPeriod
            _ = reassembler.expire(now: t)
            relayable = relayable.filter { $0.value.expires > t }
            relayedDirected = relayedDirected.filter { t - $0.value < .seconds(4_000) }  // the outbox gives up after ~57 min
            heardDirected = heardDirected.filter { t - $0.value < .seconds(4_000) }
            copiesToMe = copiesToMe.filter { t - $0.value.since < .seconds(4_000) }
            awaitingAck = awaitingAck.filter { t - $0.value.since < .seconds(600) }  // never went out (the budget)
            piecesPassedOn = piecesPassedOn.filter { t - $0.value.sentAt < .seconds(600) }
            distances = distances.filter { t - $0.value.at < neighbourMemory }
            compactDigestHeardAt = compactDigestHeardAt.filter { t - $0.value < neighbourMemory }
            lackingSince = lackingSince.filter { compactDigestHeardAt[$0.key] != nil }
            requestedBy = requestedBy.compactMapValues { asked in
                let kept = asked.filter { t - $0.value < settings.router.helloPeriod * 2 }
                return kept.isEmpty ? nil : kept
            }
            catchUpCopyHeardAt = catchUpCopyHeardAt.filter { t - $0.value < settings.router.helloPeriod * 2 }
            heardUpSince = heardUpSince.filter { t - $0.value.last < settings.router.helloPeriod * 2 }
            forgetOldRecent(at: t)
            do {
                try memory.forgetExpired(now: now.wall)
            } catch {
                log(.error, "mesh housekeeping failed", ["error": "\(error)"])
            }
        }
        if let outboxWaiting {
            // Retries wait 30 s and more: look every 5 s while something waits, else with the
            // next housekeeping (a minute at most; a new message wakes the check at once), so
            // an idle box wakes once a minute for both, not twice.
            nextOutboxCheck = outboxWaiting ? t + .seconds(5)
                : settings.outboxLooksWithHousekeeping ? nextHousekeeping : t + Self.housekeepingPeriod
        }
        var next = min(nextOutboxCheck, nextHousekeeping)
        if let routerNext = router.nextDeadline { next = min(next, routerNext) }
        if let repeatAt = digestRepeatAt { next = min(next, repeatAt) }
        if let catchUp = catchUpDeadline { next = min(next, catchUp) }
        if let quick = quickRetryAt.values.min() { next = min(next, quick) }
        if let lastHop = lastHopRetryAt.values.lazy.map(\.due).min() { next = min(next, lastHop) }
        if let relay = retryRelaysDue.lazy.map(\.at).min() { next = min(next, relay) }
        if let pieces = piecesPassedOn.values.lazy.compactMap({ $0.heard.isEmpty ? $0.firstHopDue : $0.due }).min() { next = min(next, pieces) }
        if let repair = repairTimer?.nextDeadline, !repairTimerSleeps(at: t) { next = min(next, repair) }
        return max(next, t + .milliseconds(5))
    }

    /// Changes the router's tuning at run time (the simulator slows hellos after its warm-up).
    public mutating func retune(router configuration: MeshRouterConfiguration) {
        settings.router = configuration
        router.configuration = configuration
    }

    // MARK: Reading the state

    /// The node's counters with the router's planned-and-dropped relays added in.
    public var allCounters: MeshCounters {
        var all = counters
        all.relaysCancelled += router.counters.relaysCancelled
        all.plannedRelays = router.counters.plannedRelays
        all.topologyAdverts = router.counters.topologyAdverts
        all.topologyRequests = router.counters.topologyRequests
        all.topologyAnswers = router.counters.topologyAnswers
        all.topologyAnswersHeldOff = router.counters.topologyAnswersHeldOff
        all.followUpHellos = router.counters.followUpHellos
        return all
    }

    /// The router's neighbour table.
    public var neighbours: [Neighbour] { router.neighbours }
    /// How many neighbours the router counts at `now` (monotonic): known and not expired.
    public func liveNeighbourCount(at now: Duration) -> Int { router.liveNeighbourCount(now: now) }
    /// Whether the router counts the channel as busy (the last `.channelBusy` it was told).
    public var channelBusy: Bool { router.channelBusy }
    /// The channel utilisation the router was last told (`.channelUtilisation`).
    public var channelUtilisation: Double { router.channelUtilisation }

    /// The router's own counters (relays planned, sent, pruned; implicit-ack retries).
    public var routerCounters: MeshRouter.Counters { router.counters }
    /// What the router knows of the whole mesh (``MeshRouterConfiguration/topologyPlan``).
    public var topology: MeshTopology { router.topology }
    /// The lists advert repair lacks (``MeshRouter/listsLacking``).
    public var topologyListsLacking: (all: Int, acrossOneWayLinks: Int) { router.listsLacking }

    /// Frames waiting for the radio.
    public var queuedFrames: Int { queue.count }
    /// How long the airtime budget has held this box's frames back by `now` (monotonic), per
    /// class of the frame that waited, a spell still going on counted up to `now`
    /// (``TransmitQueue/budgetHeld(now:)``).
    public func budgetHeld(at now: Duration) -> [TransmitPriority: Duration] { queue.budgetHeld(now: now) }
    /// The same over all classes.
    public func budgetHeldTotal(at now: Duration) -> Duration { queue.budgetHeldTotal(now: now) }

    /// Own airtime and channel utilisation, percent, over the queue's window at `now`.
    public func utilisation(at now: Duration) -> (channelUtilisationPercent: Double, airUtilTxPercent: Double) {
        queue.utilisation.summary(now: now)
    }

    /// This box's X25519 public key.
    public var publicKeyBytes: [UInt8] { keyPair.publicKeyBytes }

    /// How long a box heard directly counts as in range: as long as the router keeps a
    /// neighbour (three missed hellos).
    var neighbourMemory: Duration {
        (settings.router.helloPeriod + settings.router.helloJitter) * settings.router.missedHellosBeforeExpiry
    }

    /// How many hops away `node` is: 1 for a neighbour by its hellos or a box heard straight
    /// from it lately, else the fewest hops its own frames took to reach us lately; `nil` when
    /// nothing was heard from it.
    func hops(to node: NodeID, at now: Duration) -> Int? {
        if router.neighbours.contains(where: { $0.id == node }) { return 1 }
        guard let known = distances[node], now - known.at < neighbourMemory else { return nil }
        return known.hops
    }

    /// Notes that a frame `node` originated reached us after `hopsTaken` relays.
    mutating func noteDistance(of node: NodeID, hopsTaken: UInt8, at now: Duration) {
        if hopsTaken == 0 {
            // A frame the neighbour sent itself (``heardUpSince``).
            let since = heardUpSince[node].flatMap { now - $0.last < settings.router.helloPeriod * 2 ? $0.since : nil }
                ?? now - settings.router.helloPeriod
            heardUpSince[node] = (since, now)
        }
        let hops = Int(hopsTaken) + 1
        if let known = distances[node], known.hops < hops, now - known.at < neighbourMemory { return }
        distances[node] = (hops, now)
    }

    /// Whether `destination` is this box or a neighbour it hears (a frame for it need not leave the mesh).
    func isLocal(_ destination: NodeID?) -> Bool {
        guard let destination else { return false }
        return destination == me || router.neighbours.contains { $0.id == destination }
    }

    mutating func log(_ level: MeshNodeLog.Level, _ message: String, _ metadata: [String: String] = [:]) {
        actions.append(.log(MeshNodeLog(level, message, metadata)))
    }
}

/// A set of packet keys that remembers insertion order, so the oldest can be dropped.
struct OrderedKeys: Sendable {
    private var order: [PacketKey] = []
    private var members: Set<PacketKey> = []

    var count: Int { members.count }

    func contains(_ key: PacketKey) -> Bool { members.contains(key) }

    mutating func insert(_ key: PacketKey) {
        guard members.insert(key).inserted else { return }
        order.append(key)
    }

    mutating func removeFirst() {
        guard !order.isEmpty else { return }
        members.remove(order.removeFirst())
    }
}
