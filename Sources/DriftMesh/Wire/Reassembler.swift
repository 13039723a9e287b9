/// Puts fragmented payloads back together, in bounded memory.
///
/// Pieces are grouped by (origin, first packet id = packetID − index). They may arrive
/// in any order; duplicates are ignored; a payload whose pieces are not all in within
/// `timeout` of its first piece is dropped. At most `maxPartials` payloads and
/// `maxBytes` buffered bytes are held; the oldest partial payload is evicted to make room.
/// Everything dropped is counted. Pure state: the caller passes the monotonic `now`.
public struct Reassembler: Sendable {
    /// Bounds on memory and time.
    public struct Limits: Hashable, Sendable {
        public var maxPartials: Int
        public var maxBytes: Int
        public var timeout: Duration

        public init(maxPartials: Int = 32, maxBytes: Int = 64 * 1024, timeout: Duration = .seconds(120)) {
            self.maxPartials = maxPartials
            self.maxBytes = maxBytes
            self.timeout = timeout
        }
    }

    /// What happened to pieces so far, for metrics.
    public struct Counters: Hashable, Sendable {
        public var completed = 0
        public var duplicates = 0
        /// Partial payloads dropped because their time ran out.
        public var timedOut = 0
        /// Partial payloads dropped to respect `maxPartials` / `maxBytes`.
        public var evicted = 0
        /// Pieces refused: not a fragment, inconsistent with earlier pieces, or bigger than `maxBytes`.
        public var rejected = 0
    }

    /// A payload back in one piece.
    public struct Message: Hashable, Sendable {
        /// The header of the first piece's packet (`packetID` = first id, `fragment` = nil).
        public var header: MeshHeader
        public var payload: [UInt8]
    }

    /// The result of offering one piece.
    public enum Outcome: Hashable, Sendable {
        /// The last missing piece: here is the payload.
        case complete(Message)
        /// Stored; more pieces to come.
        case pending
        /// This piece was already held.
        case duplicate
        /// Refused (see `Counters.rejected`).
        case rejected
    }

    private struct Partial: Sendable {
        var header: MeshHeader
        var count: UInt8
        var pieces: [[UInt8]?]
        var received: Int
        var bytes: Int
        let startedAt: Duration
        let sequence: UInt64
    }

    public let limits: Limits
    public private(set) var counters = Counters()
    /// Bytes currently buffered in partial payloads.
    public private(set) var bufferedBytes = 0
    private var partials: [PacketKey: Partial] = [:]
    private var nextSequence: UInt64 = 0

    public init(limits: Limits = Limits()) {
        precondition(limits.maxPartials > 0 && limits.maxBytes > 0, "reassembler limits must be positive")
        self.limits = limits
    }

    /// Partial payloads held now.
    public var partialCount: Int { partials.count }

    /// Offers one opened fragment. Expires stale partials first.
    public mutating func accept(header: MeshHeader, chunk: [UInt8], now: Duration) -> Outcome {
        expire(now: now)
        guard let fragment = header.fragment, fragment.count >= 2, fragment.index < fragment.count,
            Int(fragment.count) <= MeshFrame.maxFragments, chunk.count <= limits.maxBytes
        else {
            counters.rejected += 1
            return .rejected
        }
        let key = PacketKey(origin: header.origin, packetID: header.packetID &- UInt32(fragment.index))
        let index = Int(fragment.index)

        if var partial = partials[key] {
            guard partial.count == fragment.count, partial.header.kind == header.kind,
                partial.header.destination == header.destination
            else {
                counters.rejected += 1
                return .rejected
            }
            if partial.pieces[index] != nil {
                counters.duplicates += 1
                return .duplicate
            }
            partials[key] = nil  // out while making room, so it is not evicted itself
            bufferedBytes -= partial.bytes
            partial.pieces[index] = chunk
            partial.received += 1
            partial.bytes += chunk.count
            return finishOrStore(partial, key: key)
        }

        var first = header
        first.packetID = key.packetID
        first.fragment = nil
        var pieces = [[UInt8]?](repeating: nil, count: Int(fragment.count))
        pieces[index] = chunk
        nextSequence += 1
        let partial = Partial(
            header: first, count: fragment.count, pieces: pieces, received: 1, bytes: chunk.count,
            startedAt: now, sequence: nextSequence)
        return finishOrStore(partial, key: key)
    }

    /// Drops partial payloads older than the timeout; returns how many.
    @discardableResult
    public mutating func expire(now: Duration) -> Int {
        let stale = partials.filter { now - $0.value.startedAt >= limits.timeout }
        for (key, partial) in stale {
            partials[key] = nil
            bufferedBytes -= partial.bytes
        }
        counters.timedOut += stale.count
        return stale.count
    }

    private mutating func finishOrStore(_ partial: Partial, key: PacketKey) -> Outcome {
        if partial.received == Int(partial.count) {
            counters.completed += 1
            return .complete(Message(header: partial.header, payload: partial.pieces.flatMap { $0 ?? [] }))
        }
        guard partial.bytes <= limits.maxBytes else {
            counters.rejected += 1  // one payload larger than the whole buffer
            return .rejected
        }
        makeRoom(forBytes: partial.bytes, partials: 1)
        partials[key] = partial
        bufferedBytes += partial.bytes
        return .pending
    }

    /// Evicts the oldest partials until `bytes` more bytes and `count` more partials fit.
    private mutating func makeRoom(forBytes bytes: Int, partials count: Int) {
        while !partials.isEmpty,
            bufferedBytes + bytes > limits.maxBytes || partials.count + count > limits.maxPartials
        {
            guard let oldest = partials.min(by: { $0.value.sequence < $1.value.sequence }) else { break }
            partials[oldest.key] = nil
            bufferedBytes -= oldest.value.bytes
            counters.evicted += 1
        }
    }
}
