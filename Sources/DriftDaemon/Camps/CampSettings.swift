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

    /// The settings of `config` on a channel with `dutyCycle` (0…1; `nil` where there is none):
    /// announces every `camp.announce_interval_s`, or when it is left out every
    /// ``announceInterval(dutyCycle:forgetAfter:)``; sweeps every minute, or more often when
    /// camps are forgotten within minutes.
    public init(config: DriftConfiguration, dutyCycle: Double? = nil) {
        let forget = config.camp.forgetAfter
        self.init(
            name: config.camp.name, members: UInt16(clamping: config.camp.members), note: config.camp.note,
            announceInterval: config.camp.announceIntervalS.map { .seconds($0) }
                ?? Self.announceInterval(dutyCycle: dutyCycle, forgetAfter: forget),
            forgetAfter: forget,
            sweepInterval: min(.seconds(60), max(.seconds(1), forget / 5)),
            hopLimit: config.radio.kind == .meshtastic ? nil : UInt8(clamping: config.camp.hopLimit),
            emergencyHopLimit: min(UInt8(clamping: config.camp.hopLimit + 3), MeshNode.maximumHopLimit))
    }

    /// The announce interval where the configuration leaves it out: 300 s in a sub-band of 10 %
    /// or more, and where the duty cycle is smaller as much longer as it is smaller (30 s ÷ the
    /// duty cycle: 3 000 s at 1 %, 30 000 s at 0.1 %), so a camp's announces take the same share
    /// of its budget in every band: 12 an hour at 0.68 s each are 2.3 % of 360 s, one every 50
    /// minutes 2.3 % of 36 s. In a 1 % sub-band (an E22 kit at 868.125 MHz) a mesh of 20–50
    /// boxes carries about 20 messages an hour at LongFast, 40–50 at the E22's 2.4 kbps
    /// (docs/mesh-simulation.md, "Each box's airtime and the duty cycle"): ten camps every 300 s
    /// would be 120 an hour, every 3 000 s 12. At most half of `forgetAfter` (and at least
    /// 300 s), so other boxes hear a camp at least twice before they would forget it.
    public static func announceInterval(dutyCycle: Double?, forgetAfter: Duration) -> Duration {
        let standard = Duration.seconds(300)
        return max(standard, min(DutyCyclePolicy.period(standard: standard, seconds: 30, dutyCycle: dutyCycle), forgetAfter / 2))
    }

    /// Whether this box announces itself.
    public var isCamp: Bool { !name.isEmpty }
}
