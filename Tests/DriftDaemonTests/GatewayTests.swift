import DriftMesh
import DriftStore
import Foundation
import Hardware
import Logging
import Synchronization
import Testing
import TestSupport

@testable import DriftDaemon

/// The gateway's pure parts (topics, payloads, election), its SQLite outbox, and frames from the
/// broker through a real mesh node: forged, foreign, oversize and control frames dropped and counted.
@Suite("Gateway: topics, payloads, election, outbox, frames from the broker")
struct GatewayTests {
    static let topics = GatewayTopics(prefix: "fleet/berlin", network: "0a1b2c3d")

    @Test("topics are built and parsed back; foreign and malformed topics are not ours")
    func topicsRoundTrip() {
        let node = NodeID(0x00ab_cdef)
        #expect(Self.topics.frames(from: node) == "fleet/berlin/0a1b2c3d/frames/00abcdef")
        #expect(Self.topics.state(of: node) == "fleet/berlin/0a1b2c3d/gateway/00abcdef/state")
        #expect(Self.topics.parse(Self.topics.frames(from: node)) == .frames(from: node))
        #expect(Self.topics.parse(Self.topics.state(of: node)) == .state(of: node))
        #expect(Self.topics.parse(Self.topics.mesh(of: node)) == .mesh(of: node))
        #expect(Self.topics.parse(Self.topics.telemetry(of: node)) == .telemetry(of: node))
        #expect(Self.topics.parse(Self.topics.camps) == .camps)
        for bad in ["fleet/berlin/ffffffff/frames/00abcdef", "fleet/berlin/0a1b2c3d/frames/abc", "fleet/berlin/0a1b2c3d/frames/00abcdeg",
                    "fleet/berlin/0a1b2c3d/frames/00abcdef/x", "fleet/berlin/0a1b2c3d/gateway/00abcdef/other", "fleet/berlin/0a1b2c3d/",
                    "", "fleet/berlin/0a1b2c3d/frames/", "other/0a1b2c3d/camps"] {
            #expect(Self.topics.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("the network tag is 8 hex digits, stable, and differs between keys")
    func networkTag() {
        let a = MeshSealer.networkTag(networkKey: Array(repeating: 1, count: 32))
        #expect(a.count == 8 && a.allSatisfy(\.isHexDigit))
        #expect(a == MeshSealer.networkTag(networkKey: Array(repeating: 1, count: 32)))
        #expect(a != MeshSealer.networkTag(networkKey: Array(repeating: 2, count: 32)))
    }

    @Test("frame payloads: version byte + frame; empty, unknown version, short and oversize are refused")
    func payloadCodec() throws {
        let frame = [UInt8](repeating: 7, count: 40)
        #expect(try GatewayFramePayload.decode(GatewayFramePayload.encode(frame)) == frame)
        #expect(throws: GatewayFramePayload.Problem.empty) { try GatewayFramePayload.decode([]) }
        #expect(throws: GatewayFramePayload.Problem.unknownVersion(2)) { try GatewayFramePayload.decode([2] + frame) }
        #expect(throws: GatewayFramePayload.Problem.tooShort(3)) { try GatewayFramePayload.decode([1, 1, 2, 3]) }
        let big = [UInt8](repeating: 0, count: MeshFrame.maxBytes + 1)
        #expect(throws: GatewayFramePayload.Problem.oversize(big.count + 1)) { try GatewayFramePayload.decode([1] + big) }
    }

    @Test("random payloads never crash the parser or the node; all are dropped and counted")
    func fuzz() async throws {
        let directory = try TemporaryDirectory(prefix: "gateway-fuzz")
        defer { directory.remove() }
        let node = try MeshNodeTests.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")))
        var generator = SeededGenerator(seed: 11)
        var dropped = 0
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...300, using: &generator)
            var payload = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if !payload.isEmpty, Bool.random(using: &generator) { payload[0] = GatewayFramePayload.version }
            guard let frame = try? GatewayFramePayload.decode(payload) else {
                dropped += 1
                continue
            }
            let verdict = await node.injectFromBridge(frame)
            #expect(verdict != .accepted && verdict != .duplicate, "random bytes accepted: \(verdict)")
            dropped += 1
        }
        #expect(dropped == 2_000)
        #expect(await node.status().counters.delivered == 0)
    }

    @Test("frames from the broker: a good one is accepted once; forged, foreign, expired and hellos are refused")
    func injection() async throws {
        let directory = try TemporaryDirectory(prefix: "gateway-inject")
        defer { directory.remove() }
        let node = try MeshNodeTests.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")))
        let other = BoxKeyPair()
        let good = try MeshNodeTests.frame(text: "across", packetID: 3, origin: other, hopStart: 3)
        #expect(await node.injectFromBridge(good) == .accepted)
        #expect(await node.injectFromBridge(good) == .duplicate)
        var forged = try MeshNodeTests.frame(text: "forged", packetID: 4, origin: other)
        forged[forged.count - 1] ^= 0xFF
        #expect(await node.injectFromBridge(forged) == .forged)
        let foreign = try MeshNodeTests.frame(text: "foreign", packetID: 5, origin: other, key: Array(repeating: 9, count: 32))
        #expect(await node.injectFromBridge(foreign) == .foreign)
        let old = try MeshNodeTests.frame(text: "old", packetID: 6, origin: other, lifetime: 60, now: Date().addingTimeInterval(-7_200))
        #expect(await node.injectFromBridge(old) == .expired)
        let hello = try MeshSealer(networkKey: MeshNodeTests.networkKey).seal(
            header: MeshHeader(kind: .hello, origin: other.nodeID, packetID: 8, hopStart: 0,
                               expiresAtMinute: MeshHeader.expiryMinute(now: Date(), lifetime: 600)),
            plaintext: [0])
        #expect(await node.injectFromBridge(hello) == .refused)
        let status = await node.status()
        #expect(status.counters.delivered == 1 && status.counters.bridgeHeard == 6 && status.counters.bridgeRefused == 1)
        #expect(node.inbox.all.map(\.text) == ["across"])
    }

    @Test("a frame heard on the radio is handed to the bridge once; one from the bridge is not handed back")
    func bridgeSink() async throws {
        let directory = try TemporaryDirectory(prefix: "gateway-sink")
        defer { directory.remove() }
        let node = try MeshNodeTests.node(database: try DriftDatabase.open(path: directory.appending("drift.sqlite")))
        let collected = Collected()
        await node.attachBridge { collected.add($0) }
        let other = BoxKeyPair()
        let heard = try MeshNodeTests.frame(text: "on air", packetID: 1, origin: other)
        await node.receive(MeshNodeTests.reception(heard))
        await node.receive(MeshNodeTests.reception(heard))
        _ = await node.injectFromBridge(try MeshNodeTests.frame(text: "from afar", packetID: 2, origin: other))
        let frames = collected.all
        #expect(frames.count == 2 && frames.map(\.firstTime) == [true, false] && frames.allSatisfy { $0.bytes == heard })
    }

    final class Collected: Sendable {
        private let frames = Mutex<[BridgeFrame]>([])
        func add(_ frame: BridgeFrame) { frames.withLock { $0.append(frame) } }
        var all: [BridgeFrame] { frames.withLock { $0 } }
    }

    @Test("election: the lowest online gateway of one radio mesh forwards; other meshes and offline gateways do not count")
    func election() {
        let (a, b, c, x, y) = (NodeID(10), NodeID(20), NodeID(30), NodeID(100), NodeID(200))
        var atB = GatewayElection(me: b)
        #expect(atB.isForwarder(myNeighbours: [x]))
        // A is in another mesh (no shared neighbour): B still forwards.
        atB.noteState(of: a, online: true)
        atB.noteNeighbours(of: a, [y])
        #expect(atB.isForwarder(myNeighbours: [x]))
        // A shares neighbour X with B: A forwards, B stands by.
        atB.noteNeighbours(of: a, [x])
        #expect(!atB.isForwarder(myNeighbours: [x]))
        // A goes offline (its last will): B forwards again.
        atB.noteState(of: a, online: false)
        #expect(atB.isForwarder(myNeighbours: [x]))
        // C (higher id) in the same mesh never makes B stand by; B hears A directly: A forwards.
        atB.noteState(of: c, online: true)
        atB.noteNeighbours(of: c, [b, x])
        #expect(atB.isForwarder(myNeighbours: [x]))
        atB.noteState(of: a, online: true)
        atB.noteNeighbours(of: a, [])
        #expect(!atB.isForwarder(myNeighbours: [a]))
        // Its own presence (MQTT echoes it) is ignored.
        var atA = GatewayElection(me: a)
        atA.noteState(of: a, online: true)
        #expect(atA.peers.isEmpty && atA.isForwarder(myNeighbours: [b]))
        #expect(GatewayElection.decodeNeighbours(GatewayElection.encodeNeighbours([x, y])) == [x, y])
        #expect(GatewayElection.decodeNeighbours(Array("{\"neighbours\":[\"zz\"]}".utf8)) == nil)
        #expect(GatewayElection.decodeNeighbours(Array("not json".utf8)) == nil)
    }

    @Test("the outbox keeps order, removes acknowledged rows, and drops the oldest beyond its limit (counted, persisted)")
    func outboxBounds() throws {
        let directory = try TemporaryDirectory(prefix: "gateway-outbox")
        defer { directory.remove() }
        let path = directory.appending("drift.sqlite")
        let outbox = MQTTOutbox(database: try DriftDatabase.open(path: path), limit: 5)
        let ids = try outbox.append((0..<4).map { ("t/\($0)", [UInt8($0)], 1) }, now: Date())
        #expect(try outbox.pending().map(\.topic) == ["t/0", "t/1", "t/2", "t/3"])
        try outbox.remove([ids[1]])
        #expect(try outbox.pending(after: ids[0]).map(\.topic) == ["t/2", "t/3"])
        try outbox.append((4..<8).map { ("t/\($0)", [UInt8($0)], 1) }, now: Date())
        #expect(try outbox.count() == 5 && outbox.dropped() == 2)
        #expect(try outbox.pending().map(\.topic) == ["t/3", "t/4", "t/5", "t/6", "t/7"])
        let reopened = MQTTOutbox(database: try DriftDatabase.open(path: path), limit: 5)
        #expect(try reopened.count() == 5 && reopened.dropped() == 2 && reopened.pending().first?.payload == [3])
    }
}
