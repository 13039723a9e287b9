import DriftMesh
import DriftStore
import Foundation
import Testing
import TestSupport

@testable import DriftDaemon

extension MeshNode {
    /// The kernel id of the thread this node's work runs on now.
    func threadID() throws -> Int { try OSThreads.currentID() }
}

/// The node's own thread: named, ended and joined by ``MeshNode/shutdown()``, ended when the
/// node goes away, and never gone while a call still waits for it.
@Suite("Mesh node: its thread")
struct MeshNodeThreadTests {
    @Test("shutdown ends the node's thread and returns once it has ended; a call after it still answers",
          .timeLimit(.minutes(1)))
    func shutdownJoins() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-node-thread")
        defer { directory.remove() }
        let node = try MeshNodeTests.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")))
        let thread = try await node.threadID()
        #expect(OSThreads.name(of: thread) == "mesh")
        await node.shutdown()
        #expect(await OSThreads.waitUntilGone(thread), "the mesh thread outlived shutdown")
        // A late call (a route still finishing) runs on a thread of its own, which ends again.
        #expect(await node.status().counters.heard == 0)
        let late = try await node.threadID()
        #expect(late != thread)
        await node.shutdown()
        #expect(await OSThreads.waitUntilGone(late), "the late call's thread did not end")
    }

    @Test("a node that goes away ends its thread", .timeLimit(.minutes(1)))
    func deinitEndsThread() async throws {
        let directory = try TemporaryDirectory(prefix: "mesh-node-deinit")
        defer { directory.remove() }
        var node: MeshNode? = try MeshNodeTests.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")))
        let thread = try await node?.threadID()
        let executor = try #require(node?.executor)
        node = nil
        // Returns only once the thread was told to stop: by the node's deinit.
        await executor.join()
        #expect(await OSThreads.waitUntilGone(try #require(thread)), "the mesh thread outlived its node")
    }
}
