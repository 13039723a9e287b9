import DriftMesh
import Synchronization

/// Hands what the mesh delivers to the services that understand it, one stream per
/// application port, and tells senders when a directed message was confirmed.
///
/// Services subscribe before the mesh starts (``messages(on:)``, ``confirmations()``);
/// a message on a port nobody subscribed to stays only in the node's inbox. Streams
/// buffer (bounded) so the mesh actor never waits for a slow consumer; what overflows
/// is dropped and counted in ``dropped``.
public final class MeshPorts: Sendable {
    private struct State {
        var streams: [UInt8: AsyncStream<MeshDelivery>.Continuation] = [:]
        var confirmations: [AsyncStream<PacketKey>.Continuation] = []
        /// Extra read-only subscribers per port (a gateway's telemetry), beside the one consumer.
        var taps: [UInt8: [AsyncStream<MeshDelivery>.Continuation]] = [:]
        var dropped = 0
    }

    private let state = Mutex(State())
    private let bufferLimit: Int

    public init(bufferLimit: Int = 512) {
        self.bufferLimit = bufferLimit
    }

    /// Every message delivered to this box on `port`, in the order the mesh delivered them.
    /// One subscriber per port; a second subscription replaces the first.
    public func messages(on port: MeshMessage.Port) -> AsyncStream<MeshDelivery> {
        let (stream, continuation) = AsyncStream.makeStream(of: MeshDelivery.self, bufferingPolicy: .bufferingOldest(bufferLimit))
        state.withLock { $0.streams[port.rawValue]?.finish(); $0.streams[port.rawValue] = continuation }
        return stream
    }

    /// A copy of every message delivered on `port`, beside the one ``messages(on:)`` subscriber.
    public func tap(on port: MeshMessage.Port) -> AsyncStream<MeshDelivery> {
        let (stream, continuation) = AsyncStream.makeStream(of: MeshDelivery.self, bufferingPolicy: .bufferingOldest(bufferLimit))
        state.withLock { $0.taps[port.rawValue, default: []].append(continuation) }
        return stream
    }

    /// The outbox keys of this box's directed messages as their destinations confirm them.
    public func confirmations() -> AsyncStream<PacketKey> {
        let (stream, continuation) = AsyncStream.makeStream(of: PacketKey.self, bufferingPolicy: .bufferingOldest(bufferLimit))
        state.withLock { $0.confirmations.append(continuation) }
        return stream
    }

    /// Messages and confirmations no subscriber could take (buffer full).
    public var dropped: Int { state.withLock { $0.dropped } }

    func deliver(_ delivery: MeshDelivery) {
        state.withLock { state in
            for tap in state.taps[delivery.message.port] ?? [] {
                if case .dropped = tap.yield(delivery) { state.dropped += 1 }
            }
            guard let continuation = state.streams[delivery.message.port] else { return }
            if case .dropped = continuation.yield(delivery) { state.dropped += 1 }
        }
    }

    func confirm(_ key: PacketKey) {
        state.withLock { state in
            for continuation in state.confirmations {
                if case .dropped = continuation.yield(key) { state.dropped += 1 }
            }
        }
    }

    /// Ends every stream (the mesh stopped).
    func finish() {
        state.withLock { state in
            state.streams.values.forEach { $0.finish() }
            state.confirmations.forEach { $0.finish() }
            state.taps.values.joined().forEach { $0.finish() }
            state.taps = [:]
            state.streams = [:]
            state.confirmations = []
        }
    }
}
