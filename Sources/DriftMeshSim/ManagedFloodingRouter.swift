import DriftMesh

/// Meshtastic's managed flooding, re-implemented from the firmware's source for comparison
/// (meshtastic/firmware: `FloodingRouter.cpp`, `NextHopRouter.cpp`, `RadioInterface.cpp`,
/// `RadioLibInterface.cpp`, `Router.cpp`; see docs/mesh-simulation.md for the table).
///
/// - A packet heard for the first time is queued for rebroadcast (hop limit permitting)
///   after an SNR-weighted delay (`getTxDelayMsecWeighted`): `CWsize = map(snr, −20, 10,
///   CWmin 3, CWmax 8)`; clients wait `2·CWmax` slots plus `random(0, 2^CWsize)` slots (a
///   strong signal means the sender is close, so wait longer and let farther boxes go
///   first); routers wait `random(0, 2·CWsize)` slots.
/// - The relay stays in the radio's queue until it goes on air. A duplicate heard before
///   then cancels it (`perhapsCancelDupe` → `cancelSending`, clients only) — also when its
///   delay already ran out and the channel was busy (`RadioLibInterface::onNotify`
///   re-draws the full weighted delay then, `channelBusyDelay`).
/// - A duplicate with more hops left than any copy seen replaces the queued relay
///   (`perhapsHandleUpgradedPacket`); the origin's own retransmission (`hop_start ==
///   hop_limit`) is relayed again when our relay is no longer queued (`isRepeated`).
/// - Own packets wait `random(0, 2^CWmin)` slots first (`getTxDelayMsec` at low channel
///   utilisation). The origin of a broadcast that wants an ack retransmits (up to
///   `retransmissions` times) when it hears no rebroadcast within `getRetransmissionMsec`.
public struct ManagedFloodingRouter: Sendable {
    public let me: NodeID
    public let isRouter: Bool
    public let slotMs: Double
    public let cwMin: Int
    public let cwMax: Int
    /// Queued relays survive a busy channel (the firmware). `false` reproduces the old model,
    /// which dropped a relay from the cancellable set when its delay ran out (review finding 1).
    public let cancelQueued: Bool
    public let retransmissions: Int
    public let retransmissionTimeout: Duration
    /// Meshtasticator's MAC instead of the firmware's (lib/mac.py: CWmin 2, SNR mapped from
    /// −20…15 dB in floating point, no `2·CWmax` offset for clients), for calibration only.
    public let meshtasticatorMAC: Bool
    /// The model before issue 19 (review reproduction only): own packets go out at once,
    /// no hop-limit upgrade, no relaying of the origin's retransmission, and a busy
    /// channel leaves the back-off to the simulator (1…8 slots).
    public let legacy: Bool
    private var rng: MeshRandom
    /// Waiting for its delay (the firmware's transmit timer).
    private var pending: [PacketKey: (header: MeshHeader, at: Duration, snr: Double?)] = [:]
    /// Handed to the radio queue, not yet on air: still cancellable.
    private var queued: [PacketKey: Double?] = [:]
    /// Highest hop limit heard per packet (the firmware's `PacketHistory` upgrade check).
    private var highestHopsLeft: [PacketKey: Int] = [:]
    private var originRetries: [PacketKey: (header: MeshHeader, at: Duration, left: Int)] = [:]
    /// Relays cancelled by an overheard duplicate while still waiting for their delay
    /// (those cancelled in the radio queue are counted by the caller).
    public private(set) var cancelledCount = 0
    public private(set) var retransmissionsSent = 0

    /// `packetAirtime`: time on air of a data frame (for the retransmission timeout).
    public init(me: NodeID, slotMs: Double, packetAirtime: Duration, isRouter: Bool = false, retransmissions: Int = 2,
                cwMin: Int = 3, cwMax: Int = 8, cancelQueued: Bool = true, meshtasticatorMAC: Bool = false, legacy: Bool = false, seed: UInt64) {
        self.legacy = legacy
        self.meshtasticatorMAC = meshtasticatorMAC
        self.me = me
        self.isRouter = isRouter
        self.slotMs = slotMs
        self.cwMin = cwMin
        self.cwMax = cwMax
        self.cancelQueued = cancelQueued
        self.retransmissions = retransmissions
        self.rng = MeshRandom(seed: seed ^ (UInt64(me.rawValue) &* 0x9E37_79B9_7F4A_7C15))
        // getRetransmissionMsec at low channel utilisation (CWsize = CWmin), PROCESSING_TIME_MSEC 4500.
        let slots = Double((1 << cwMin) + 2 * cwMax + (1 << ((cwMax + cwMin) / 2)))
        self.retransmissionTimeout = packetAirtime * 2 + .microseconds(Int64((slots * slotMs + 4500) * 1000))
    }

    /// Arduino `map()` in integer arithmetic, SNR clamped to the mapped range (`getCWsize`).
    public func contentionWindow(snr: Double) -> Int {
        if meshtasticatorMAC {
            let clamped = min(max(snr, -20), 15)
            return Int((clamped + 20) * Double(cwMax - cwMin) / 35 + Double(cwMin))
        }
        let clamped = Int(min(max(snr, -20), 10))
        return (clamped - -20) * (cwMax - cwMin) / (10 - -20) + cwMin
    }

    private func slots(_ n: Int) -> Duration {
        .microseconds(Int64(Double(n) * slotMs * 1000))
    }

    /// `getTxDelayMsecWeighted` (relays; `random(0, n)` is 0…n−1).
    mutating func relayDelay(snr: Double) -> Duration {
        let cw = contentionWindow(snr: snr)
        if isRouter { return slots(rng.int(in: 0...(2 * cw - 1))) }
        if meshtasticatorMAC { return slots(rng.int(in: 0...((1 << cw) - 1))) }
        return slots(2 * cwMax + rng.int(in: 0...((1 << cw) - 1)))
    }

    /// `getTxDelayMsec` at low channel utilisation (own packets).
    mutating func ownDelay() -> Duration {
        slots(rng.int(in: 0...((1 << cwMin) - 1)))
    }
}

extension ManagedFloodingRouter: SimRouting {
    public mutating func originate(_ header: MeshHeader, now: Duration) -> [RouterAction] {
        if retransmissions > 0 {
            originRetries[header.key] = (header, now + retransmissionTimeout, retransmissions)
        }
        if legacy { return [.transmit(header)] }
        highestHopsLeft[header.key] = header.hopsLeft
        pending[header.key] = (header, now + ownDelay(), nil)
        return []
    }

    public mutating func heard(_ header: MeshHeader, link: LinkQuality, firstTime: Bool, now: Duration) -> [RouterAction] {
        let key = header.key
        if header.origin == me {
            if header.hopsTaken > 0 { originRetries[key] = nil }  // implicit ack
            return []
        }
        if !firstTime, legacy {
            if !isRouter, pending.removeValue(forKey: key) != nil {
                cancelledCount += 1
                return [.cancelled(key)]
            }
            if !isRouter, cancelQueued, queued.removeValue(forKey: key) != nil { return [.cancelled(key)] }
            return []
        }
        if !firstTime {
            let highest = highestHopsLeft[key] ?? 0
            highestHopsLeft[key] = max(highest, header.hopsLeft)
            let waiting = pending[key] != nil || queued[key] != nil
            if header.hopsLeft > highest, waiting, header.hopsLeft > 0, header.destination != me {
                // perhapsHandleUpgradedPacket: relay the copy with more hops left instead.
                var actions: [RouterAction] = []
                if queued.removeValue(forKey: key) != nil { actions.append(.cancelled(key)) }
                pending[key] = (header.relayed(by: me), now + relayDelay(snr: link.snr), link.snr)
                return actions
            }
            if header.hopsTaken == 0 {
                // isRepeated: the origin retransmits; relay again unless ours is still queued.
                if !waiting, header.hopsLeft > 0, header.destination != me {
                    pending[key] = (header.relayed(by: me), now + relayDelay(snr: link.snr), link.snr)
                }
                return []
            }
            guard !isRouter else { return [] }
            if pending.removeValue(forKey: key) != nil {
                cancelledCount += 1
                return [.cancelled(key)]
            }
            if cancelQueued, queued.removeValue(forKey: key) != nil {
                return [.cancelled(key)]
            }
            return []
        }
        highestHopsLeft[key] = header.hopsLeft
        var actions: [RouterAction] = []
        if header.destination == nil || header.destination == me { actions.append(.deliver(key)) }
        if header.destination != me, header.hopsLeft > 0 {
            pending[key] = (header.relayed(by: me), now + relayDelay(snr: link.snr), link.snr)
        }
        return actions
    }

    public mutating func heardHello(from: NodeID, payload: HelloPayload, link: LinkQuality, now: Duration) -> [RouterAction] { [] }

    public func helloPayload(publicKey: [UInt8]?, now: Duration) -> HelloPayload {
        HelloPayload(publicKey: publicKey, neighbours: [])
    }

    public var nextDeadline: Duration? {
        let a = pending.values.map(\.at).min()
        let b = originRetries.values.map(\.at).min()
        switch (a, b) {
        case let (x?, y?): return min(x, y)
        case let (x?, nil): return x
        case let (nil, y?): return y
        default: return nil
        }
    }

    public mutating func due(now: Duration) -> [RouterAction] {
        var actions: [RouterAction] = []
        for key in pending.keys.sorted() where pending[key]!.at <= now {
            actions.append(.transmit(pending[key]!.header))
            queued[key] = pending[key]!.snr
            pending[key] = nil
        }
        for key in originRetries.keys.sorted() where originRetries[key]!.at <= now {
            var entry = originRetries[key]!
            actions.append(.transmit(entry.header))
            retransmissionsSent += 1
            entry.left -= 1
            entry.at = now + retransmissionTimeout
            originRetries[key] = entry.left > 0 ? entry : nil
        }
        return actions
    }

    /// The channel was busy when the frame's turn came: the firmware re-draws the whole
    /// delay (`setTransmitDelay`: weighted by the SNR the packet was heard at for a relay,
    /// `getTxDelayMsec` for our own).
    public mutating func channelBusyDelay(for header: MeshHeader, now: Duration) -> Duration? {
        if legacy { return nil }
        if let snr = queued[header.key] ?? nil, header.origin != me { return relayDelay(snr: snr) }
        return ownDelay()
    }

    public mutating func wentOnAir(_ header: MeshHeader, now: Duration) {
        queued[header.key] = nil
    }
}
