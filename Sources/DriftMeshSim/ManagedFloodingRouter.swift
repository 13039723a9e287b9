import DriftMesh

/// Meshtastic's managed flooding, re-implemented from the firmware's description
/// (src/mesh/FloodingRouter.cpp, RadioInterface.cpp, ReliableRouter) for comparison.
///
/// - A packet heard for the first time is rebroadcast (hop limit permitting) after an
///   SNR-weighted contention delay: `CWsize = map(snr, −20, 10, CWmin 3, CWmax 8)`;
///   clients wait `2·CWmax` slots plus `random(0, 2^CWsize)` slots (a strong signal means
///   the sender is close, so wait longer and let farther boxes go first); routers wait
///   `random(0, 2·CWsize)` slots, so they relay first.
/// - A queued rebroadcast is cancelled when the same packet is overheard (clients only).
/// - The origin of a broadcast that wants an ack retransmits (up to `retransmissions`
///   times) when it hears no rebroadcast within `getRetransmissionMsec`.
public struct ManagedFloodingRouter: Sendable {
    public let me: NodeID
    public let isRouter: Bool
    public let slotMs: Double
    public let cwMin = 3
    public let cwMax = 8
    public let retransmissions: Int
    public let retransmissionTimeout: Duration
    private var rng: MeshRandom
    private var pending: [PacketKey: (header: MeshHeader, at: Duration)] = [:]
    private var originRetries: [PacketKey: (header: MeshHeader, at: Duration, left: Int)] = [:]
    public private(set) var cancelledCount = 0
    public private(set) var retransmissionsSent = 0

    /// `packetAirtime`: time on air of a data frame (for the retransmission timeout).
    public init(me: NodeID, slotMs: Double, packetAirtime: Duration, isRouter: Bool = false, retransmissions: Int = 2, seed: UInt64) {
        self.me = me
        self.isRouter = isRouter
        self.slotMs = slotMs
        self.retransmissions = retransmissions
        self.rng = MeshRandom(seed: seed ^ (UInt64(me.rawValue) &* 0x9E37_79B9_7F4A_7C15))
        // getRetransmissionMsec at low channel utilisation (CWsize = CWmin), PROCESSING_TIME_MSEC 4500.
        let slots = Double((1 << cwMin) + 2 * cwMax + (1 << ((cwMax + cwMin) / 2)))
        self.retransmissionTimeout = packetAirtime * 2 + .microseconds(Int64((slots * slotMs + 4500) * 1000))
    }

    /// Arduino `map()` in integer arithmetic, SNR clamped to the mapped range.
    public func contentionWindow(snr: Double) -> Int {
        let clamped = Int(min(max(snr, -20), 10))
        return (clamped - -20) * (cwMax - cwMin) / (10 - -20) + cwMin
    }

    /// `getTxDelayMsecWeighted`.
    mutating func relayDelay(snr: Double) -> Duration {
        let cw = contentionWindow(snr: snr)
        let slots: Int
        if isRouter {
            slots = rng.int(in: 0...(2 * cw - 1))
        } else {
            slots = 2 * cwMax + rng.int(in: 0...((1 << cw) - 1))
        }
        return .microseconds(Int64(Double(slots) * slotMs * 1000))
    }
}

extension ManagedFloodingRouter: SimRouting {
    public mutating func originate(_ header: MeshHeader, now: Duration) -> [RouterAction] {
        if retransmissions > 0 {
            originRetries[header.key] = (header, now + retransmissionTimeout, retransmissions)
        }
        return [.transmit(header)]
    }

    public mutating func heard(_ header: MeshHeader, link: LinkQuality, firstTime: Bool, now: Duration) -> [RouterAction] {
        let key = header.key
        if header.origin == me {
            if header.hopsTaken > 0 { originRetries[key] = nil }  // implicit ack
            return []
        }
        if !firstTime {
            if !isRouter, pending.removeValue(forKey: key) != nil {
                cancelledCount += 1
                return [.cancelled(key)]
            }
            return []
        }
        var actions: [RouterAction] = []
        if header.destination == nil || header.destination == me { actions.append(.deliver(key)) }
        if header.destination != me, header.hopsLeft > 0 {
            pending[key] = (header.relayed(by: me), now + relayDelay(snr: link.snr))
        }
        return actions
    }

    public mutating func heardHello(from: NodeID, payload: HelloPayload, link: LinkQuality, now: Duration) -> [RouterAction] { [] }

    public func helloPayload(publicKey: [UInt8], now: Duration) -> HelloPayload {
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
}
