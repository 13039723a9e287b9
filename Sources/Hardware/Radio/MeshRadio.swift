/// A LoRa radio as the mesh layer sees it: frames out, frames in.
///
/// One task receives (``receive()``), any task transmits; implementations are
/// half duplex like the hardware: while a frame is on the air, nothing is heard.
public protocol MeshRadio: AnyObject, Sendable {
    /// The largest frame the radio carries in one packet.
    var maximumFrameBytes: Int { get }
    /// Sends one frame and returns when it has left the antenna (after its time on air).
    func transmit(_ frame: [UInt8], airtime: Duration) async throws
    /// The next frame heard; `nil` once the radio is closed.
    func receive() async throws -> RadioReception?
    /// Releases the radio; a pending ``receive()`` returns `nil` and ``run()`` returns.
    func close()
    /// The radio's own background work (a Meshtastic node's connection loop), run by the
    /// radio's owner in a task of its own until ``close()``. Radios without any return at once.
    func run() async
    /// Receptions dropped before the mesh saw them because they did not decode.
    var malformedReceptions: Int { get }
    /// Frames this radio could not hear because it was transmitting while they were on the air.
    var deafReceptions: Int { get }
    /// Frames lost at this radio to another frame on the air at the same time (a collision).
    var collidedReceptions: Int { get }
    /// Carriers read only after this radio had begun to talk over their transmission.
    var carriersReadLate: Int { get }
    /// Bursts of bytes that held several packets run together and were handed on one by one.
    var splitBursts: Int { get }
    /// Whether the radio checks, while the channel is quiet, that its module still answers:
    /// `on`, `off` or `checking`; `nil` for radios without such a check.
    var idleProbeState: String? { get }
    /// Carrier sense: until when another transmission it hears is still on the air, on
    /// ``MonotonicTime``'s scale; `nil` when it hears none (or cannot tell). The mesh's scheduler
    /// listens before it talks.
    var channelBusyUntil: Duration? { get }
    /// Carrier sense: when the last transmission it heard on the air ended, on
    /// ``MonotonicTime``'s scale (past or still to come); `nil` when it heard none (or cannot
    /// tell). A frame that comes ready just as the channel turns quiet draws a back-off first.
    var channelQuietSince: Duration? { get }
}

extension MeshRadio {
    public func run() async {}

    /// Receptions this radio dropped before the mesh saw them because they did not decode
    /// (a simulated datagram without its header or with an impossible position, an E22
    /// packet cut short): shown in `driftd mesh status`. Radios that drop nothing say 0.
    public var malformedReceptions: Int { 0 }

    /// Frames lost to half duplex (this radio was transmitting while they were on the air), for
    /// radios that can tell: shown in `driftd mesh status`. Radios that cannot say 0.
    public var deafReceptions: Int { 0 }

    /// Frames lost to a collision with another frame on the air, for radios that can tell (the
    /// simulated radio): shown in `driftd mesh status`. Hardware radios cannot and say 0.
    public var collidedReceptions: Int { 0 }

    /// Transmissions this radio began over another already on the air whose carrier it read
    /// only later (the simulated radio's loopback lag; a hardware radio's channel activity
    /// detection hears a frame within a few symbols): shown in `driftd mesh status`. Others say 0.
    public var carriersReadLate: Int { 0 }

    /// Bursts that held several packets run together (the E22's packet boundary is a UART
    /// pause, which a reader late by more than the pause does not see), handed on one by one:
    /// shown in `driftd mesh status`. Radios whose packets come framed say 0.
    public var splitBursts: Int { 0 }

    /// Radios without an idle probe of their module: `nil` (the E22 has one,
    /// `E22Radio.IdleProbe`): shown in `driftd mesh status`.
    public var idleProbeState: String? { nil }

    /// Radios without carrier sense: never busy.
    public var channelBusyUntil: Duration? { nil }
    public var channelQuietSince: Duration? { nil }
}
