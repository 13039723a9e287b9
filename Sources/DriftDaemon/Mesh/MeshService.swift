import DriftMesh
import DriftSystem
import Hardware
import Logging
import ServiceLifecycle
import Synchronization

/// Runs the mesh: one task hears frames from the radio and hands them to the
/// ``MeshNode``, another runs the node's timers and puts queued frames on the air.
///
/// The radio's health is the `radio` component: a receive failure is a fault (retried
/// with back-off), transmit errors are counted. The scheduler sleeps on the node's clock
/// until the node's next deadline or until new work rings its doorbell, so an idle mesh
/// costs a few wake-ups per minute. When ``run()`` ends, the node's thread is ended and
/// joined (``MeshNode/shutdown()``): the services that use the node stop before this one.
public final class MeshService: Service, Sendable {
    public static let component = "radio"

    public let node: MeshNode
    private let radio: any MeshRadio
    private let health: HealthRegistry
    private let logger: Logger
    private let activity: @Sendable () -> Void
    /// Transmissions held back because the radio heard another one on the air.
    private let busyWaits = Mutex(0)
    /// Transmissions that came ready just as the channel turned quiet and drew a back-off.
    private let quietWaits = Mutex(0)
    /// Transmissions held for the answer of a box this one cannot hear (``MeshNode/answerHeldUntil()``).
    private let answerWaits = Mutex(0)
    /// Now on ``MonotonicTime``'s scale, the radio's carrier-sense clock (a test sets it).
    private let monotonicNow: @Sendable () -> Duration

    /// The node's status with the radio's own drops.
    public func status() async -> MeshStatus {
        var status = await node.status()
        status.radioMalformed = radio.malformedReceptions
        status.radioDeaf = radio.deafReceptions
        status.radioCollided = radio.collidedReceptions
        status.radioCarriersReadLate = radio.carriersReadLate
        status.radioSplitBursts = radio.splitBursts
        status.radioIdleProbe = radio.idleProbeState
        status.radioBusyWaits = busyWaits.withLock { $0 }
        status.radioQuietWaits = quietWaits.withLock { $0 }
        status.radioAnswerWaits = answerWaits.withLock { $0 }
        return status
    }

    public init(node: MeshNode, radio: any MeshRadio, health: HealthRegistry, logger: Logger, activity: @escaping @Sendable () -> Void = {},
                monotonicNow: @escaping @Sendable () -> Duration = { MonotonicTime.now() }) {
        self.node = node
        self.monotonicNow = monotonicNow
        self.radio = radio
        self.health = health
        self.logger = logger
        self.activity = activity
        health.register(Self.component, maximumSilence: nil)
    }

    /// Wakes the scheduler. The node rings it itself whenever it is handed a message or a
    /// frame (``MeshNode/workQueued``); this is for anything else that changed its deadlines.
    public func wake() {
        node.workQueued.ring()
    }

    public func run() async throws {
        logger.info("mesh up", metadata: ["node": "\(node.me)"])
        // The radio's own work (a Meshtastic node's connection loop) until it is closed below.
        async let radioWork: Void = radio.run()
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.receiveLoop() }
                group.addTask { await self.scheduleLoop() }
                await group.next()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            self.radio.close()
        }
        radio.close()
        await radioWork
        await node.shutdown()
        // What the radio lost and waited for since start, for the journal (`mesh status` while up).
        logger.info("mesh down", metadata: [
            "deaf": "\(radio.deafReceptions)", "collided": "\(radio.collidedReceptions)",
            "carriers_read_late": "\(radio.carriersReadLate)", "busy_waits": "\(busyWaits.withLock { $0 })",
            "quiet_waits": "\(quietWaits.withLock { $0 })", "answer_waits": "\(answerWaits.withLock { $0 })",
        ])
    }

    private func receiveLoop() async {
        var backoff = Duration.seconds(1)
        while !Task.isCancelled {
            do {
                guard let reception = try await radio.receive() else { return }
                activity()
                await node.receive(reception)  // rings the scheduler
                health.setFault(Self.component, nil)
                backoff = .seconds(1)
            } catch is CancellationError {
                return
            } catch {
                logger.error("radio receive failed", metadata: ["error": "\(error)"])
                health.setFault(Self.component, "receive failed: \(error)")
                try? await node.clock.sleep(for: backoff)
                backoff = min(backoff * 2, .seconds(60))
            }
        }
    }

    private func scheduleLoop() async {
        while !Task.isCancelled {
            let deadline = await node.tick()
            let (frame, wakeAt) = await node.nextTransmission()
            if let frame {
                let header = try? MeshFrameCodec.parse(frame.bytes).header
                let handed = monotonicNow()
                let waits = await listenBeforeTalk(quietBackOff: QuietBackOff.applies(to: header, me: node.me))
                if waits > 0, logger.logLevel <= .trace {
                    // The trace's "frame to the radio" line is when the node handed the frame
                    // over; this one is when it went on the air after listen before talk.
                    var metadata = MeshFrameTrace.metadata(of: frame.bytes)
                    metadata["held_ms"] = "\((monotonicNow() - handed) / .milliseconds(1))"
                    metadata["waits"] = "\(waits)"
                    logger.trace("mesh frame on the air after listen before talk", metadata: metadata)
                }
                do {
                    activity()
                    try await radio.transmit(frame.bytes, airtime: frame.airtime)
                } catch is CancellationError {
                    return
                } catch {
                    await node.transmissionFailed()
                    logger.warning("radio transmit failed", metadata: ["error": "\(error)"])
                }
                continue
            }
            let next = min(deadline, wakeAt ?? deadline)
            if next > node.monotonicNow { await node.workQueued.wait { [node] in try await node.sleep(until: next) } }
        }
    }

    /// Listen before talk: while the radio hears another transmission on the air (carrier sense,
    /// ``MeshRadio/channelBusyUntil``), look again 1…4 contention slots later, at random, however
    /// long that frame lasts — so that boxes waiting for the same frame do not start together,
    /// and one whose look lands soon after the frame ended starts soon. At most 8 frames (and
    /// quiet back-offs, below) are waited for, then the frame goes. Half duplex: a box that starts
    /// while a neighbour's frame is on the air loses that frame, and the neighbour's receivers
    /// lose ours. Radios without carrier sense are never busy.
    ///
    /// Until issue 19's session of 2026-12-06 a box slept until the frame it heard ended and then
    /// 1…8 slots: in the simulator (which has always looked again like this) that rule cost the
    /// daemon's node 8–14 % more data airtime at 20–50 boxes under load, more collisions and no
    /// more reach or confirmations, and our router 0.4–0.5 s of median latency at 30 boxes
    /// (`docs/mesh-simulation.md`, "Listen before talk looks again").
    ///
    /// A frame that comes ready — or looks again — less than a slot after the channel turned quiet
    /// (``MeshRadio/channelQuietSince``) draws the same 1…4 slots first (`quietBackOff`,
    /// ``QuietBackOff``): the frame just heard is what made it ready (an acknowledgement, a
    /// digest's answer), and its sender's next frame goes at once. Without it the two started
    /// together — each deaf to the other, and their neighbours hearing neither: on the real
    /// daemons' lossy line at SF7, 2 of every 100 frames. A relay of another box's packet keeps
    /// its slot (its delay orders it among the relays).
    ///
    /// The same frames wait, once the channel is quiet, for the acknowledgement a box this one
    /// cannot hear owes a neighbour whose directed frame it just heard
    /// (``MeshNode/answerHeldUntil()``, `radioAnswerWaits`): carrier sense cannot hear that
    /// answer, and a frame that went a few slots after the neighbour's end collided with it at
    /// the neighbour.
    ///
    /// - Returns: how many times the frame waited (frames heard, quiet back-offs, answers held
    ///   for); the trace then logs when it went on the air.
    @discardableResult
    private func listenBeforeTalk(quietBackOff: Bool) async -> Int {
        var rounds = 0
        var heardUntil: Duration?  // the end of the frame last found on the air
        for _ in 0..<Self.looksAtMost {
            let now = monotonicNow()
            if let busyUntil = radio.channelBusyUntil, busyUntil > now {
                if busyUntil != heardUntil {  // another frame than at the last look
                    guard rounds < Self.roundsAtMost else { return rounds }
                    rounds += 1
                    heardUntil = busyUntil
                    busyWaits.withLock { $0 += 1 }
                }
            } else if quietBackOff, let quiet = radio.channelQuietSince, now - quiet < node.contentionSlot {
                guard rounds < Self.roundsAtMost else { return rounds }
                rounds += 1
                quietWaits.withLock { $0 += 1 }
            } else if quietBackOff, case let held = await node.answerHeldUntil(), held > node.monotonicNow {
                // A box this one cannot hear answers the frame just heard (its drawn slots
                // included); a relay keeps its slot, as for the quiet back-off.
                guard rounds < Self.roundsAtMost else { return rounds }
                rounds += 1
                answerWaits.withLock { $0 += 1 }
                do { try await node.sleep(until: held) } catch { return rounds }
                continue
            } else {
                return rounds
            }
            do { try await node.clock.sleep(for: node.contentionSlot * Int.random(in: 1...Self.lookSlotsAtMost), tolerance: nil) } catch { return rounds }
        }
        return rounds
    }

    /// Frames waited for and quiet back-offs before a frame goes anyway.
    static let roundsAtMost = 8
    /// A look on a busy channel, and the quiet back-off, wait 1…this many contention slots
    /// (``QuietBackOff/windowSlots``, the simulator's default too).
    static let lookSlotsAtMost = QuietBackOff.windowSlots
    /// Looks at the channel before a frame goes anyway: enough for 8 of the longest frames at
    /// 2.5 slots a look (a 255-byte frame lasts 25–35 slots at the presets), and a bound should
    /// the radio's clock stand still.
    static let looksAtMost = 256

    /// Publishes `line` as a plain text message on the Meshtastic channel set by
    /// `meshtastic.text_channel`, so stock Meshtastic apps show it. `false` when the radio is not
    /// a Meshtastic node, publishing is off, or the node did not take it.
    public func publishText(_ line: String) async -> Bool {
        guard let node = radio as? MeshtasticRadio else { return false }
        do {
            return try await node.publishText(line)
        } catch {
            logger.info("text line not published on Meshtastic", metadata: ["error": "\(error)"])
            return false
        }
    }
}
