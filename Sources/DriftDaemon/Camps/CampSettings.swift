import DriftConfig
import DriftMesh
import Foundation

/// What ``CampService`` is told by the `[camp]` and `[mesh]` configuration.
public struct CampSettings: Sendable {
    /// The camp's name; empty: this box announces nothing (it still keeps the directory).
    public var name: String
    public var members: UInt16
    public var note: String
    /// Mean time between announces; each wait is jittered by ±10 %.
    public var announceInterval: Duration
    /// Camps unheard this long are forgotten.
    public var forgetAfter: Duration
    /// How often the directory is swept for camps to forget and expired messages.
    public var sweepInterval: Duration
    /// Hop limit of every other camp message (`camp.hop_limit`); `nil`: the node's own (on a
    /// Meshtastic radio 0 — the Meshtastic firmware relays, with its own hop limit).
    public var hopLimit: UInt8?
    /// Hop limit of emergencies (the camp hop limit + 3, at most 7).
    public var emergencyHopLimit: UInt8
    /// How long chat lines, requests and emergencies stay listed; events stay until they end (and at most 7 days).
    public var messageLifetime: TimeInterval
    /// A ping is answered with an announce only if the last one is at least this old.
    public var pingAnswerSpacing: Duration

    public init(name: String, members: UInt16 = 0, note: String = "", announceInterval: Duration = .seconds(300),
                forgetAfter: Duration = .seconds(86_400), sweepInterval: Duration = .seconds(60), hopLimit: UInt8? = 3, emergencyHopLimit: UInt8 = 6,
                messageLifetime: TimeInterval = 86_400, pingAnswerSpacing: Duration = .seconds(60)) {
        self.name = name
        self.members = members
        self.note = note
        self.announceInterval = announceInterval
        self.forgetAfter = forgetAfter
        self.sweepInterval = sweepInterval
        self.hopLimit = hopLimit
        self.emergencyHopLimit = emergencyHopLimit
        self.messageLifetime = messageLifetime
        self.pingAnswerSpacing = pingAnswerSpacing
    }

    /// The settings of `config`: sweeps every minute, or more often when camps are forgotten within minutes.
    public init(config: DriftConfiguration) {
        let forget = config.camp.forgetAfter
        self.init(
            name: config.camp.name, members: UInt16(clamping: config.camp.members), note: config.camp.note,
            announceInterval: .seconds(config.camp.announceIntervalS), forgetAfter: forget,
            sweepInterval: min(.seconds(60), max(.seconds(1), forget / 5)),
            hopLimit: config.radio.kind == .meshtastic ? nil : UInt8(clamping: config.camp.hopLimit),
            emergencyHopLimit: min(UInt8(clamping: config.camp.hopLimit + 3), MeshNode.maximumHopLimit))
    }

    /// Whether this box announces itself.
    public var isCamp: Bool { !name.isEmpty }
}
