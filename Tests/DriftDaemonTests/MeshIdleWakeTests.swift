import DriftConfig
import DriftMesh
import DriftStore
import Foundation
import Logging
import Testing
import TestSupport

@testable import DriftDaemon

/// What the mesh of a box nobody uses costs it, as the daemon sets the node up for the board
/// (`MeshSetup.nodeSettings`, the embedded default configuration: 5-minute hellos, paced
/// repair) on a real SQLite file, driven the way `MeshService`'s scheduler drives it, on a manual
/// clock. The idle benchmark (`scripts/bench-idle.sh`, docs/performance.md "Idle") measures the
/// whole daemon on a real clock and is not run by CI; this guards the mesh thread's share of it,
/// which twice grew unnoticed (the outbox's own look a minute after the last send, and compact
/// digests nobody could answer).
@Suite("Mesh node of a box nobody uses: its wake-ups")
struct MeshIdleWakeTests {
    /// The instants the scheduler loop ran (after a sleep or a frame's time on air) and the kinds
    /// of the frames it sent, for a lone box over `hours`.
    static func lone(hours: Int) async throws -> (wakes: [Duration], sent: [(at: Duration, kind: FrameKind)]) {
        let config = try ConfigLoader(systemBoardDirectories: []).load(
            text: DriftConfiguration.embeddedDefaultText, fileName: "test.toml", baseDirectory: nil).configuration
        let modulation = try MeshSetup.modulation(for: config)
        let period = MeshSetup.helloPeriod(config, policy: try MeshSetup.policy(MeshSetup.effectiveRadio(config)))
        let settings = MeshSetup.nodeSettings(config, helloPeriod: period, modulation: modulation, maximumFrameBytes: MeshFrame.maxBytes)
        #expect(settings.pacedRepair != nil && period == .seconds(300), "not the board's mesh")

        let directory = try TemporaryDirectory(prefix: "mesh-idle")
        defer { directory.remove() }
        let clock = ManualClock()
        let node = try MeshNode(keyPair: BoxKeyPair(), networkKey: config.mesh.networkKey,
                                store: MeshStore(database: try DriftDatabase.open(path: directory.appending("drift.sqlite"))),
                                budget: AirtimeBudget(window: .seconds(3_600), limit: .seconds(360)), settings: settings,
                                logger: Logger(label: "test"), clock: clock, now: clock.wallClock(startingAt: Date()))
        var wakes: [Duration] = []
        var sent: [(at: Duration, kind: FrameKind)] = []
        let end = Duration.seconds(3_600 * hours)
        while node.monotonicNow < end {
            // MeshService.scheduleLoop: run what is due, put a frame on the air (the radio takes
            // its time on air), else sleep until the next deadline.
            let deadline = await node.tick()
            let (frame, wakeAt) = await node.nextTransmission()
            if let frame {
                sent.append((node.monotonicNow, try MeshFrameCodec.parse(frame.bytes).header.kind))
                clock.advance(by: frame.airtime)
            } else {
                let next = min(deadline, wakeAt ?? deadline)
                clock.advance(by: max(next - node.monotonicNow, .milliseconds(1)))
            }
            wakes.append(node.monotonicNow)
        }
        await node.shutdown()
        return (wakes, sent)
    }

    @Test("alone for three hours: after the first half hour, at most a wake a minute for housekeeping and two per hello, and nothing on the air but hellos")
    func loneBoxWakesForHousekeepingAndHellos() async throws {
        let (wakes, sent) = try await Self.lone(hours: 3)
        let settled = Duration.seconds(1_800)
        let hours = 2.5
        let steady = wakes.filter { $0 >= settled }
        let frames = sent.filter { $0.at >= settled }
        let kinds = Dictionary(grouping: frames, by: \.kind).mapValues(\.count)
        #expect(Set(kinds.keys) == [.hello], "only hellos once the box has been alone a while: \(kinds)")
        // 12 hellos an hour at 5 minutes (± a tenth), 60 housekeeping beats: the outbox looks on
        // that beat and finds nothing; a hello is a wake to send it and one when it has gone.
        let hellos = kinds[.hello] ?? 0
        #expect(Double(hellos) / hours >= 10 && Double(hellos) / hours <= 14, "\(hellos) hellos in \(hours) h")
        let perHour = Double(steady.count) / hours
        #expect(perHour <= 60 + 2 * 14, "\(perHour) wakes an hour: \(Self.gaps(steady))")
        // Digests stop once no neighbour has been heard for as long as one is remembered (16.5
        // minutes at these hellos): before that a box just started may have neighbours that do
        // not know it yet.
        let digests = sent.filter { $0.kind == .digest }
        #expect(digests.allSatisfy { $0.at < .seconds(1_200) }, "digests of a lone box at \(digests.map(\.at))")
        print("mesh idle: \(perHour) wakes an hour after 30 min, \(hellos) hellos, digests at \(digests.map { $0.at.components.seconds }) s, gaps \(Self.gaps(steady).sorted { $0.key < $1.key })")
    }

    /// Wake-up gaps in whole seconds, counted: how the wakes fall.
    static func gaps(_ wakes: [Duration]) -> [Int: Int] {
        zip(wakes, wakes.dropFirst()).reduce(into: [:]) { counts, pair in
            counts[Int((pair.1 - pair.0).components.seconds), default: 0] += 1
        }
    }
}
