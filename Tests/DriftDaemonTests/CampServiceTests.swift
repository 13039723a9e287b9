import DriftConfig
import DriftMesh
import DriftStore
import Foundation
import Logging
import Synchronization
import Testing
import TestSupport

@testable import DriftDaemon

/// The camp service with a real in-memory store, a fake mesh (records what it is given)
/// and an explicit clock.
@Suite("Camp service: receive, send, forget")
struct CampServiceTests {
    static let start = Date(timeIntervalSince1970: 1_780_000_000)
    static let north = NodeID(0x0000_0C01)
    static let me = NodeID(0x0000_0AAA)
    static let here = CampPosition(latitude: 52.47312, longitude: 13.40191)!
    static let nearby = CampPosition(latitude: 52.48212, longitude: 13.40191)!  // 0.009° north: ~1 km

    /// What the fake mesh and text hook were given, and the clock.
    final class Record: Sendable {
        let sent = Mutex<[(CampMessage, TransmitPriority, UInt8?)]>([])
        let lines = Mutex<[String]>([])
        let clock = Mutex(CampServiceTests.start)
    }

    final class Harness: Sendable {
        let store: CampStore
        let record: Record
        let service: CampService

        init(name: String = "Home", forgetAfter: Duration = .seconds(600), refuse: Bool = false) throws {
            let store = CampStore(database: try DriftDatabase.inMemory())
            self.store = store
            let record = Record()
            self.record = record
            service = CampService(
                store: store, me: CampServiceTests.me,
                settings: CampSettings(name: name, members: 5, note: "hi", forgetAfter: forgetAfter, emergencyHopLimit: 6),
                deliveries: nil,
                send: { message, priority, hops in
                    if refuse { throw CampService.SendError(description: "budget") }
                    record.sent.withLock { $0.append((message, priority, hops)) }
                },
                position: { CampServiceTests.here }, textPublisher: { line in record.lines.withLock { $0.append(line) } },
                logger: Logger(label: "test"), now: { record.clock.withLock { $0 } })
        }

        func advance(_ seconds: TimeInterval) { record.clock.withLock { $0 = $0.addingTimeInterval(seconds) } }

        func deliver(_ message: CampMessage, from node: NodeID = CampServiceTests.north) async throws {
            try await deliver(bytes: message.encoded(), from: node)
        }

        func deliver(bytes: [UInt8], from node: NodeID = CampServiceTests.north) async {
            let at = record.clock.withLock { $0 }
            await service.handle(MeshDelivery(key: PacketKey(origin: node, packetID: 1), origin: node, destination: nil, hops: 1,
                                              message: MeshMessage(port: MeshMessage.Port.camp.rawValue, body: bytes), receivedAt: at))
        }
    }

    @Test("an announce enters the directory with its distance; chat and emergencies are listed, emergencies first in status")
    func receive() async throws {
        let h = try Harness()
        try await h.deliver(.announce(.init(name: "North", position: Self.nearby, members: 30, note: "tea")))
        h.advance(10)
        try await h.deliver(.chat(.init(camp: "", text: "hello")))
        h.advance(10)
        try await h.deliver(.emergency(.init(emergency: .medical, text: "broken leg", position: Self.nearby)))
        let listing = try await h.service.listing()
        #expect(listing.camps.count == 1)
        let camp = try #require(listing.camps.first)
        #expect(camp.name == "North" && camp.members == 30 && camp.lastKind == "emergency")
        let distance = try #require(camp.distanceMeters)
        #expect(abs(distance - 1_001) < 5, "\(distance)")
        #expect(listing.messages.map(\.kind) == ["emergency", "chat"])
        #expect(listing.messages.map(\.camp) == ["North", "North"], "the camp's name labels messages from its box")
        let status = DaemonStatus.Camps(me: "Home", beaconKit: false, listing: listing)
        #expect(status.known == 1 && status.names == ["North"] && status.emergencies == 1)
        #expect(h.record.lines.withLock { $0 }.contains { $0.contains("EMERGENCY (medical): broken leg") })
    }

    @Test("garbage on the camp port is dropped without a trace")
    func garbage() async throws {
        let h = try Harness()
        await h.deliver(bytes: [])
        await h.deliver(bytes: [0x11, 40])
        await h.deliver(bytes: [0xFF, 1, 2, 3])
        let counts = try h.store.counts()
        #expect(counts.camps == 0 && counts.messages == 0)
    }

    @Test("sending: announces in the background, chat interactive, emergencies at emergency priority with the higher hop limit")
    func priorities() async throws {
        let h = try Harness()
        try await h.service.announce()
        try await h.service.send(try h.service.message(kind: "chat", arguments: ["text": "hi all"]))
        try await h.service.send(try h.service.message(kind: "request", arguments: ["text": "20 l", "resource": "water"]))
        try await h.service.send(try h.service.message(kind: "emergency", arguments: ["text": "fire!", "emergency": "fire"]))
        let sent = h.record.sent.withLock { $0 }
        #expect(sent.map { $0.1 } == [.background, .interactive, .normal, .emergency])
        #expect(sent.map { $0.2 } == [3, 3, 3, 6], "camp traffic at camp.hop_limit, emergencies three hops further")
        #expect(sent[0].0 == .announce(.init(name: "Home", position: Self.here, members: 5, note: "hi")))
        #expect(sent[3].0 == .emergency(.init(emergency: .fire, text: "fire!", position: Self.here)))
        // What this box sent is listed too (as its own), but it is no camp in its own directory.
        let listing = try await h.service.listing()
        #expect(listing.camps.isEmpty)
        #expect(listing.messages.map(\.kind) == ["emergency", "request", "chat"] && listing.messages.allSatisfy(\.fromMe))
    }

    @Test("bad control arguments are refused with a message")
    func badArguments() throws {
        let h = try Harness()
        #expect(throws: CampService.SendError.self) { try h.service.message(kind: "shout", arguments: [:]) }
        #expect(throws: CampService.SendError.self) { try h.service.message(kind: "request", arguments: ["resource": "gold"]) }
        #expect(throws: CampService.SendError.self) { try h.service.message(kind: "event", arguments: ["start": "soon"]) }
    }

    @Test("a text over its limit and a refused send are errors, and nothing is recorded")
    func refusals() async throws {
        let h = try Harness()
        await #expect(throws: CampService.SendError.self) {
            try await h.service.send(.chat(.init(camp: "Home", text: String(repeating: "x", count: 161))))
        }
        let refusing = try Harness(refuse: true)
        await #expect(throws: CampService.SendError.self) { try await refusing.service.send(.chat(.init(camp: "Home", text: "hi"))) }
        #expect(try refusing.store.counts().messages == 0)
        let noCamp = try Harness(name: "")
        await #expect(throws: CampService.SendError.self) { try await noCamp.service.announce() }
    }

    @Test("a ping is answered by an announce, at most once a minute")
    func ping() async throws {
        let h = try Harness()
        try await h.deliver(.ping(nonce: 1))
        h.advance(30)
        try await h.deliver(.ping(nonce: 2))
        h.advance(31)
        try await h.deliver(.ping(nonce: 3))
        #expect(h.record.sent.withLock { $0.map { $0.0.kind } } == [.announce, .announce])
        let quiet = try Harness(name: "")
        try await quiet.deliver(.ping(nonce: 1))
        #expect(quiet.record.sent.withLock { $0.isEmpty }, "a box that is no camp does not answer")
    }

    @Test("camps unheard for forget_after are forgotten by the sweep; heard ones stay")
    func forget() async throws {
        let h = try Harness(forgetAfter: .seconds(600))
        try await h.deliver(.announce(.init(name: "North", position: nil, members: 1)))
        try await h.deliver(.announce(.init(name: "South", position: nil, members: 1)), from: NodeID(0x0C02))
        h.advance(500)
        try await h.deliver(.chat(.init(camp: "South", text: "still here")), from: NodeID(0x0C02))
        h.advance(200)
        #expect(try await h.service.sweep() == 1)
        #expect(try await h.service.listing().camps.map(\.name) == ["South"])
        h.advance(600)
        #expect(try await h.service.sweep() == 1)
        #expect(try await h.service.listing().camps.isEmpty)
    }

    @Test("announce jitter stays within ±10 %")
    func jitter() {
        for _ in 0..<200 {
            let wait = CampService.seconds(CampService.jittered(.seconds(300)))
            #expect(wait >= 270 && wait <= 330)
        }
    }

    @Test("camp.hop_limit: camp traffic travels 3 hops by default, emergencies 3 more, at most 7; the mesh's own limit is 7")
    func hopLimitsFromConfiguration() throws {
        let standard = try GPSPowerSaverTests.config()
        #expect(standard.mesh.hopLimit == 7 && standard.camp.hopLimit == 3)
        let settings = CampSettings(config: standard)
        #expect(settings.hopLimit == 3 && settings.emergencyHopLimit == 6)
        let far = CampSettings(config: try GPSPowerSaverTests.config([("hop_limit = 3                 # hops camp", "hop_limit = 5 # hops camp")]))
        #expect(far.hopLimit == 5 && far.emergencyHopLimit == 7)
        let bad = #expect(throws: ConfigError.self) {
            try GPSPowerSaverTests.config([("hop_limit = 3                 # hops camp", "hop_limit = 8 # hops camp")])
        }
        #expect(bad?.issues.first?.key == "camp.hop_limit")
        // On a Meshtastic radio the firmware relays with its own hop limit: camp traffic takes
        // the node's (0), emergencies still ask for more.
        let meshtastic = CampSettings(config: try GPSPowerSaverTests.config([
            ("kind = \"sim\"\nport = \"sim\"\nbaud = 9600", "kind = \"meshtastic\"\nport = \"/dev/ttyACM0\"\nbaud = 115200"),
        ]))
        #expect(meshtastic.hopLimit == nil && meshtastic.emergencyHopLimit == 6)
    }

    @Test("MeshNode.send with a hop limit stores frames with that hop start, capped at 7")
    func hopLimit() async throws {
        let directory = try TemporaryDirectory(prefix: "camp-hops")
        defer { directory.remove() }
        let database = try DriftDatabase.open(path: directory.appending("drift.sqlite"))
        let node = try MeshNodeTests.node(database: database)
        _ = try await node.send(.text("normal"))
        _ = try await node.send(.text("far"), priority: .emergency, hopLimit: 6)
        _ = try await node.send(.text("too far"), priority: .emergency, hopLimit: 12)
        let entries = try MeshStore(database: database).due(now: Date().addingTimeInterval(1))
        let hops = try entries.map { try MeshFrameCodec.parse($0.frames[0]).header.hopStart }
        #expect(hops.sorted() == [3, 6, 7])
        #expect(entries.map(\.priority).sorted() == [TransmitPriority.normal.rawValue, TransmitPriority.emergency.rawValue, TransmitPriority.emergency.rawValue])
    }

    @Test("frame sizes and LongFast airtimes of camp messages are those of docs/camps.md")
    func airtime() throws {
        func frame(_ message: CampMessage) throws -> [UInt8] {
            let header = MeshHeader(kind: .broadcast, origin: Self.me, packetID: 1, hopStart: 3,
                                    expiresAtMinute: MeshHeader.expiryMinute(now: Date(), lifetime: 3_600))
            let payload = MeshMessage(port: MeshMessage.Port.camp.rawValue, body: try message.encoded()).encoded
            return try MeshSealer(networkKey: MeshNodeTests.networkKey).seal(header: header, plaintext: payload)
        }
        func milliseconds(_ bytes: Int) -> Int {
            let d = LoRaAirtime.duration(payloadBytes: bytes, modulation: .longFast)
            return Int((CampService.seconds(d) * 1_000).rounded())
        }
        let cases: [(CampMessage, Int, Int)] = [
            (.ping(nonce: 7), 38, 518),
            (.announce(.init(name: "North Camp 1", position: Self.here, members: 40)), 58, 682),
            (.announce(.init(name: String(repeating: "n", count: 32), position: Self.here, members: 40,
                             note: String(repeating: "o", count: 64))), 142, 1_296),
            (.emergency(.init(emergency: .fire, text: String(repeating: "e", count: 160), position: Self.here)), 204, 1_788),
        ]
        for (message, bytes, ms) in cases {
            let sealed = try frame(message)
            #expect(sealed.count == bytes, "\(message.kind)")
            #expect(milliseconds(sealed.count) == ms, "\(message.kind): \(milliseconds(sealed.count)) ms")
            #expect(sealed.count <= MeshFrame.maxBytes)
        }
    }
}
