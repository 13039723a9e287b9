import DriftCore
import DriftMesh
import Foundation
import Synchronization

/// The in-memory side of ``MeshBottleService``: its port subscriptions, the frames that
/// carried bottles hosted here (for erase-everywhere), remote participants' last words,
/// chat rate limits and counters.
public final class MeshBottleState: Sendable {
    /// Figures for status and tests.
    public struct Counters: Sendable, Equatable, Codable {
        /// Application payloads that did not decode.
        public var malformed = 0
        /// Chat frames not sent because a box's chat budget was spent.
        public var rateLimited = 0
        /// Chat lines from the mesh that showed nothing (only invisible or direction-control
        /// characters: the visitor text rule, `VisitorText`), dropped.
        public var refusedText = 0
        /// Joins and lines that a box sent before the same participant's leave and that arrived
        /// after it (retried late), dropped.
        public var staleWords = 0
    }

    /// Where a visitor here stands with the host of a chat hosted elsewhere (kept per
    /// participant, so per visitor: the host admits people, not boxes).
    public enum JoinState: Sendable, Equatable {
        /// This visitor never asked to join from here (or this box restarted since).
        case notJoined
        /// Asked; the host has not answered yet.
        case pending
        /// The host's last answer.
        case answered(RemoteAdmission)
    }

    /// A remote participant as the host knows them: the pseudonym *and* the box it came
    /// through (the same pseudonym claimed through another box is a stranger there).
    struct RemoteParticipant: Hashable {
        var participant: ParticipantID
        var box: NodeID
    }

    struct Streams: Sendable {
        var boxInfo: AsyncStream<MeshDelivery>
        var bottle: AsyncStream<MeshDelivery>
        var chat: AsyncStream<MeshDelivery>
        var erase: AsyncStream<MeshDelivery>
        var notice: AsyncStream<MeshDelivery>
        var confirmations: AsyncStream<PacketKey>
    }

    /// A token bucket per box: `burst` chat frames, then one per `spacing` (LoRa airtime is scarce).
    struct ChatBudget {
        var tokens: Double
        var updated: Date
    }

    private struct State {
        var streams: Streams?
        var parcels: [BottleID: BottleMeshWire.Erase.ParcelFrames] = [:]
        var notices: [BottleID: [BottleMeshWire.Notice.Kind]] = [:]
        /// On the host: each remote participant's last word, by pseudonym and relaying box.
        var remote: [BottleID: [RemoteParticipant: Date]] = [:]
        /// On the host: the packet id of each remote participant's last leave. A join or line
        /// sent before it (older id from the same box) that arrives after it — store-and-forward
        /// retries reorder — must not bring them back in.
        var leaves: [BottleID: [RemoteParticipant: UInt32]] = [:]
        var budgets: [NodeID: ChatBudget] = [:]
        /// Watch requests for bottles not arrived yet (bounded; oldest dropped).
        var heldWatches: [(bottle: BottleID, box: NodeID)] = []
        /// On a visitor's box: each participant's join and the host's last answer (absent: never asked).
        var admissions: [BottleID: [ParticipantID: JoinState]] = [:]
        var counters = Counters()
    }

    private let state = Mutex(State())
    let burst: Double
    let spacing: TimeInterval

    init(burst: Double = 5, spacing: TimeInterval = 5) {
        self.burst = burst
        self.spacing = spacing
    }

    func subscribe(ports: MeshPorts) {
        let streams = Streams(boxInfo: ports.messages(on: .boxInfo), bottle: ports.messages(on: .bottle), chat: ports.messages(on: .chat),
                              erase: ports.messages(on: .erase), notice: ports.messages(on: .notice), confirmations: ports.confirmations())
        state.withLock { $0.streams = streams }
    }

    func takeStreams() -> Streams {
        state.withLock { state in
            guard let streams = state.streams else { preconditionFailure("MeshBottleService runs once") }
            state.streams = nil
            return streams
        }
    }

    var counters: Counters { state.withLock { $0.counters } }
    func countMalformed() { state.withLock { $0.counters.malformed += 1 } }
    func countRateLimited() { state.withLock { $0.counters.rateLimited += 1 } }
    func countRefusedText() { state.withLock { $0.counters.refusedText += 1 } }
    func countStale() { state.withLock { $0.counters.staleWords += 1 } }

    func rememberParcel(_ bottle: BottleID, frames: BottleMeshWire.Erase.ParcelFrames) {
        state.withLock { $0.parcels[bottle] = frames }
    }

    func takeParcel(_ bottle: BottleID) -> BottleMeshWire.Erase.ParcelFrames? {
        state.withLock { $0.parcels.removeValue(forKey: bottle) }
    }

    func recordNotice(_ bottle: BottleID, _ kind: BottleMeshWire.Notice.Kind) {
        state.withLock { $0.notices[bottle, default: []].append(kind) }
    }

    func notices(of bottle: BottleID) -> [BottleMeshWire.Notice.Kind] {
        state.withLock { $0.notices[bottle] ?? [] }
    }

    /// Notes a remote participant's word through `box`; `true` when they were not inside
    /// through that box yet (admit them).
    func remoteHeard(_ participant: ParticipantID, in bottle: BottleID, from box: NodeID, at now: Date) -> Bool {
        state.withLock { state in
            let key = RemoteParticipant(participant: participant, box: box)
            let known = state.remote[bottle]?[key] != nil
            state.remote[bottle, default: [:]][key] = now
            return !known
        }
    }

    /// Notes a remote participant's leave, sent through `box` as packet `packetID`.
    func recordLeave(_ participant: ParticipantID, in bottle: BottleID, from box: NodeID, packetID: UInt32) {
        state.withLock { state in
            let key = RemoteParticipant(participant: participant, box: box)
            if let known = state.leaves[bottle]?[key], !Self.isNewer(packetID, than: known) { return }
            state.leaves[bottle, default: [:]][key] = packetID
        }
    }

    /// Whether a word of `participant` through `box`, sent as packet `packetID`, was sent before
    /// their last leave (it arrived late, and is ignored).
    func sentBeforeLeave(_ participant: ParticipantID, in bottle: BottleID, from box: NodeID, packetID: UInt32) -> Bool {
        state.withLock { state in
            guard let leave = state.leaves[bottle]?[RemoteParticipant(participant: participant, box: box)] else { return false }
            return Self.isNewer(leave, than: packetID)
        }
    }

    /// Serial-number order of a box's packet ids (RFC 1982): `a` was sent after `b`, across a wrap.
    static func isNewer(_ a: UInt32, than b: UInt32) -> Bool {
        a != b && Int32(bitPattern: a &- b) > 0
    }

    /// Forgets a remote participant who spoke through `box`; `true` when they were inside.
    func remoteLeft(_ participant: ParticipantID, in bottle: BottleID, from box: NodeID) -> Bool {
        state.withLock { $0.remote[bottle]?.removeValue(forKey: RemoteParticipant(participant: participant, box: box)) != nil }
    }

    /// Remote participants silent since `cutoff`, removed from the list (they have left).
    func silentRemoteParticipants(olderThan cutoff: Date) -> [(BottleID, ParticipantID)] {
        state.withLock { state in
            var silent: [(BottleID, ParticipantID)] = []
            for (bottle, participants) in state.remote {
                for (key, heard) in participants where heard < cutoff {
                    silent.append((bottle, key.participant))
                    state.remote[bottle]?[key] = nil
                }
            }
            return silent
        }
    }

    /// Takes one chat frame from `box`'s budget; `false` when it is spent.
    func mayRelay(to box: NodeID, at now: Date) -> Bool {
        state.withLock { state in
            var budget = state.budgets[box] ?? ChatBudget(tokens: burst, updated: now)
            budget.tokens = min(burst, budget.tokens + max(0, now.timeIntervalSince(budget.updated)) / spacing)
            budget.updated = now
            guard budget.tokens >= 1 else {
                state.budgets[box] = budget
                return false
            }
            budget.tokens -= 1
            state.budgets[box] = budget
            return true
        }
    }

    func holdWatch(_ bottle: BottleID, from box: NodeID) {
        state.withLock { state in
            state.heldWatches.append((bottle, box))
            if state.heldWatches.count > 1_000 { state.heldWatches.removeFirst(state.heldWatches.count - 1_000) }
        }
    }

    func takeHeldWatches(_ bottle: BottleID) -> [NodeID] {
        state.withLock { state in
            let boxes = state.heldWatches.filter { $0.bottle == bottle }.map(\.box)
            state.heldWatches.removeAll { $0.bottle == bottle }
            return boxes
        }
    }

    /// Where `participant` (a visitor here) stands with the host of `bottle`.
    func joinState(_ participant: ParticipantID, in bottle: BottleID) -> JoinState {
        state.withLock { $0.admissions[bottle]?[participant] ?? .notJoined }
    }

    /// Records a join on its way (`.pending`) or the host's answer.
    func recordJoin(_ join: JoinState, for participant: ParticipantID, in bottle: BottleID) {
        state.withLock { $0.admissions[bottle, default: [:]][participant] = join }
    }

    func forget(_ bottle: BottleID) {
        state.withLock { state in
            state.admissions[bottle] = nil
            state.parcels[bottle] = nil
            state.remote[bottle] = nil
            state.leaves[bottle] = nil
            state.notices[bottle] = nil
        }
    }
}
