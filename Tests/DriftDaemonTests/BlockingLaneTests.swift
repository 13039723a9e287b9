import DriftDaemon
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite("Blocking lanes: SQLite and file work off the cooperative pool")
struct BlockingLaneTests {
    @Test("work on a lane runs on the lane's own thread: with more lanes held than the pool has threads, the pool still runs every task")
    func ownThread() async throws {
        let gate = ThreadGate()
        defer { gate.open() }
        // More held lanes than the cooperative pool has threads: had they run there, nothing else could.
        let width = ProcessInfo.processInfo.activeProcessorCount + 2
        let lanes = (0..<width).map { BlockingLane(name: "lane-\($0)") }
        let held = lanes.map { lane in Task { await lane.run { gate.pass() } } }
        await gate.waitForArrivals(width)
        let finished = await withTaskGroup(of: Int.self) { tasks in
            for index in 0..<(width * 4) { tasks.addTask { index } }
            return await tasks.reduce(0) { count, _ in count + 1 }
        }
        #expect(finished == width * 4)
        #expect(gate.held == width)
        gate.open()
        for task in held { await task.value }
        #expect(gate.releasedByLimit == 0, "the tasks ran only once the held lanes let go")
        // A lane runs its work in order, and returns what it computed.
        let lane = BlockingLane(name: "order")
        let order = Mutex<[Int]>([])
        for index in 0..<20 { await lane.run { order.withLock { $0.append(index) } } }
        #expect(order.withLock { $0 } == Array(0..<20))
        #expect(try await lane.run { () throws -> Int in 42 } == 42)
    }
}
