import DriftCore
import DriftMesh
import DriftStore
import Foundation
import Logging
import TestSupport
import Testing

@testable import DriftDaemon

/// The host's rules for visitors at other boxes (`docs/mesh-bottles.md`, "Who may join from
/// afar"): the same proofs a visitor here gives, checked by the host. Driven with explicit
/// times, no sleeping; the three-box run is `MeshBottleProcessTests`.
@Suite("Remote chat admission")
struct RemoteAdmissionTests {
    let start = BottlesFixtures.start
    static let far = try! BoxID("node-0a0b0c0d")
    static let otherFar = try! BoxID("node-0e0e0e0e")

    /// A bottle with `conditions`, opened here by the creator so its chat is live.
    func opened(_ harness: BottlesHarness, _ id: BottleID, conditions: [BottleCondition], oneShot: Bool = false) async throws {
        try harness.create(id, conditions: conditions, oneShot: oneShot)
        await harness.processor.process(now: start)
        let decision = try await harness.processor.open(id, visitor: BottlesFixtures.creator, password: nil, at: start)
        #expect(decision.isOpen, "\(decision.reasons)")
    }

    func remote(_ seed: UInt8) -> ParticipantID {
        try! ParticipantID(hex: String(repeating: String(format: "%02x", seed), count: ParticipantID.byteCount))
    }

    @Test("what a visitor elsewhere must bring follows the bottle's conditions")
    func access() throws {
        func bottle(_ conditions: [BottleCondition], oneShot: Bool = false) throws -> Bottle {
            let draft = BottleDraft(content: BottleContent(text: "x"), conditions: conditions, lifetime: 3_600, isOneShot: oneShot)
            return try Bottle.create(draft, id: BottlesFixtures.bottleID(1), shareCode: ShareCode.random(),
                                     origin: BottleOrigin(boxID: BottlesFixtures.boxID, position: nil, countryCode: nil),
                                     creator: BottlesFixtures.creator, now: start)
        }
        let password = BottleCondition(.password(try PasswordHasher(iterations: 1_000).hash("kelp")))
        let presence = BottleCondition(.presence(PresenceCondition(withinSeconds: 60)))
        let delay = BottleCondition(.delay(UnlockDelay(seconds: 60)))
        #expect(RemoteAccess(try bottle([])) == .open)
        #expect(RemoteAccess(try bottle([delay])) == .open)
        #expect(RemoteAccess(try bottle([password, delay])) == .password)
        #expect(RemoteAccess(try bottle([presence])) == .inPersonOnly)
        #expect(RemoteAccess(try bottle([password, presence])) == .inPersonOnly)
        #expect(RemoteAccess(try bottle([], oneShot: true)) == .inPersonOnly)
    }

    @Test("password: refused without it or wrong, admitted with it; the same box stays admitted, another must give it again")
    func password() async throws {
        var harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try await opened(harness, id, conditions: [BottleCondition(.password(try PasswordHasher(iterations: 1_000).hash("kelp")))])
        let visitor = remote(1)
        let at = start.addingTimeInterval(5)
        #expect(await harness.processor.admitRemote(visitor, in: id, box: Self.far, label: .nearby, password: nil, at: at) == .refused(.passwordNeeded))
        #expect(await harness.processor.admitRemote(visitor, in: id, box: Self.far, label: .nearby, password: "sand", at: at) == .refused(.wrongPassword))
        #expect(!(try harness.store.participants(of: id)).contains { $0.participant == visitor })
        #expect(await harness.processor.admitRemote(visitor, in: id, box: Self.far, label: .nearby, password: "kelp", at: at) == .admitted)
        #expect(try harness.store.participants(of: id).contains { $0.participant == visitor && $0.box == Self.far })
        // Later words from the same box need no password again (also after the host restarts:
        // the admission is the stored participant).
        #expect(await harness.processor.admitRemote(visitor, in: id, box: Self.far, label: .nearby, password: nil, at: at) == .admitted)
        // The same pseudonym claimed through another box is a stranger there.
        #expect(await harness.processor.admitRemote(visitor, in: id, box: Self.otherFar, label: .nearby, password: nil, at: at) == .refused(.passwordNeeded))
        #expect(await harness.takeKinds().contains(.participantJoined(visitor)))
    }

    @Test("password guesses from afar go through the same limiter, per participant and per box")
    func passwordLimited() async throws {
        let harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try await opened(harness, id, conditions: [BottleCondition(.password(try PasswordHasher(iterations: 1_000).hash("kelp")))])
        let at = start.addingTimeInterval(5)
        for _ in 0..<5 {
            #expect(await harness.processor.admitRemote(remote(1), in: id, box: Self.far, label: .nearby, password: "sand", at: at) == .refused(.wrongPassword))
        }
        #expect(await harness.processor.admitRemote(remote(1), in: id, box: Self.far, label: .nearby, password: "kelp", at: at)
                == .refused(.tooManyAttempts(retryAfterSeconds: 300)))
        // Fresh pseudonyms through the same box: each gets one guess until the box has 10 wrong ones.
        for seed in 2...6 { _ = await harness.processor.admitRemote(remote(UInt8(seed)), in: id, box: Self.far, label: .nearby, password: "sand", at: at) }
        _ = await harness.processor.admitRemote(remote(7), in: id, box: Self.far, label: .nearby, password: "sand", at: at)
        #expect(await harness.processor.admitRemote(remote(7), in: id, box: Self.far, label: .nearby, password: "sand", at: at)
                == .refused(.tooManyAttempts(retryAfterSeconds: 300)))
        // A visitor who never guessed wrong is admitted at once, from that box or another.
        #expect(await harness.processor.admitRemote(remote(8), in: id, box: Self.far, label: .nearby, password: "kelp", at: at) == .admitted)
        #expect(await harness.processor.admitRemote(remote(9), in: id, box: Self.otherFar, label: .nearby, password: "kelp", at: at) == .admitted)
    }

    @Test("presence and one-shot bottles admit nobody from afar; an ended chat admits nobody")
    func inPersonOnly() async throws {
        let harness = try await BottlesHarness()
        defer { harness.remove() }
        let presence = BottlesFixtures.bottleID(1)
        let oneShot = BottlesFixtures.bottleID(2)
        try harness.create(presence, conditions: [BottleCondition(.presence(PresenceCondition(withinSeconds: 60)))])
        try await opened(harness, oneShot, conditions: [], oneShot: true)
        let at = start.addingTimeInterval(5)
        // The presence bottle was never opened here: its chat is not live, and even once it is, no.
        #expect(await harness.processor.admitRemote(remote(1), in: presence, box: Self.far, label: .nearby, password: nil, at: at) == .refused(.chatClosed))
        #expect(await harness.processor.admitRemote(remote(1), in: oneShot, box: Self.far, label: .nearby, password: nil, at: at) == .refused(.inPersonOnly))
        #expect(!(try harness.store.participants(of: oneShot)).contains { $0.participant == remote(1) })
        #expect(await harness.processor.admitRemote(remote(1), in: BottlesFixtures.bottleID(9), box: Self.far, label: .nearby, password: nil, at: at)
                == .refused(.chatClosed))
    }

    @Test("an open bottle admits a visitor elsewhere without proof")
    func openBottle() async throws {
        let harness = try await BottlesHarness()
        defer { harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try await opened(harness, id, conditions: [])
        #expect(await harness.processor.admitRemote(remote(1), in: id, box: Self.far, label: .global, password: nil, at: start.addingTimeInterval(5)) == .admitted)
    }
}

/// One box for the in-process tests of remote chat: its bottles (a ``BottlesHarness``), a mesh
/// node that never transmits, and its mesh bottle service, not running. The test carries chat
/// messages between boxes as the radio would: from the sender's outbox (opened with the network
/// key) to the receiver's service.
struct MeshBottleBox {
    var harness: BottlesHarness
    let node: MeshNode
    let service: MeshBottleService
    var me: NodeID { node.me }

    init(_ name: String) async throws {
        harness = try await BottlesHarness()
        node = try MeshNodeTests.node(database: harness.database)
        service = MeshBottleService(node: node, ports: MeshPorts(), processor: harness.processor, events: harness.bus,
                                    settings: .init(name: name), logger: Logger(label: "test"))
    }

    /// `chat` arrives here from `box`.
    func hear(_ chat: BottleMeshWire.Chat, from box: NodeID) async {
        await service.receiveChat(MeshDelivery(key: PacketKey(origin: box, packetID: .random(in: 1...UInt32.max)), origin: box,
                                               destination: me, hops: 1,
                                               message: MeshMessage(port: MeshMessage.Port.chat.rawValue, body: chat.encoded),
                                               receivedAt: Date()))
    }

    /// The chat messages this box queued for `box` since the last call (taken out of the outbox).
    func sent(to box: NodeID) throws -> [BottleMeshWire.Chat] {
        let sealer = try MeshSealer(networkKey: MeshNodeTests.networkKey)
        var chats: [BottleMeshWire.Chat] = []
        for entry in try node.store.due(now: Date().addingTimeInterval(1)) where entry.destination == box {
            try #require(entry.frames.count == 1, "chat messages fit one frame")
            let message = try #require(MeshMessage(decoding: try sealer.open(entry.frames[0]).plaintext))
            if message.port == MeshMessage.Port.chat.rawValue, let chat = BottleMeshWire.Chat(decoding: message.body) { chats.append(chat) }
            _ = try node.store.markDelivered(entry.id)
        }
        return chats
    }

    /// Carries what this box queued for `other` there; returns it.
    @discardableResult
    func carry(to other: MeshBottleBox) async throws -> [BottleMeshWire.Chat] {
        let chats = try sent(to: other.me)
        for chat in chats { await other.hear(chat, from: me) }
        return chats
    }

    /// The texts of the chat of `bottle` hosted here, sorted (lines of the same millisecond have no order).
    func texts(_ bottle: BottleID) throws -> [String] {
        try harness.store.page(of: bottle, limit: 100).messages.map(\.text).sorted()
    }

    /// The texts of the replica here of the chat of `bottle` hosted elsewhere, sorted.
    func replica(_ bottle: BottleID) async throws -> [String] {
        try await service.withStore { try $0.remoteLines(of: bottle) }.map(\.text).sorted()
    }

    /// A bottle with `conditions` made here now and opened by its creator, so its chat is live.
    func hostOpened(_ id: BottleID, conditions: [BottleCondition]) async throws {
        let now = Date()
        try harness.create(id, conditions: conditions, at: now)
        await harness.processor.process(now: now)
        let decision = try await harness.processor.open(id, visitor: BottlesFixtures.creator, password: nil, at: now)
        #expect(decision.isOpen, "\(decision.reasons)")
    }

    /// The announcement of `id`'s chat, heard here from `host` (its password access with the host's key).
    func heardOpen(_ id: BottleID, from host: MeshBottleBox, password: Bool) async {
        await hear(.open(id, expiresAt: Date().addingTimeInterval(3_600), hint: "by the pier",
                         access: password ? .password(hostKey: host.node.publicKeyBytes) : .open), from: host.me)
    }
}

/// Two or three services wired by carrying their chat messages (``MeshBottleBox``): the host's
/// rules hold for each pseudonym *through the box that speaks for it*, and text from the mesh
/// passes the same rule as text written here.
@Suite("Remote chat across boxes, in process")
struct RemoteChatAcrossBoxesTests {
    static let password = BottleCondition(.password(try! PasswordHasher(iterations: 1_000).hash("kelp")))

    @Test("a pseudonym admitted through box A is a stranger when box B speaks for it: B's line is dropped and B is told")
    func pseudonymBoundToItsBox() async throws {
        let (a, c) = (try await MeshBottleBox("A"), try await MeshBottleBox("C"))
        defer { a.harness.remove(); c.harness.remove() }
        let b = BoxKeyPair().nodeID  // a box that only claims
        let id = BottlesFixtures.bottleID(1)
        try await c.hostOpened(id, conditions: [Self.password])
        await a.heardOpen(id, from: c, password: true)
        let alice = a.harness.participant(BottlesFixtures.alice, in: id)

        try await a.service.join(id, participant: alice, password: "kelp")
        #expect(try await a.carry(to: c).count == 1)
        #expect(try await c.carry(to: a) == [.admission(id, participant: alice, verdict: .admitted)])
        #expect(a.service.joinState(alice, in: id) == .answered(.admitted))
        await c.hear(.line(id, participant: alice, language: "en", text: "from A, really me"), from: a.me)
        #expect(try c.texts(id) == ["from A, really me"])

        // B speaks for the same pseudonym without the password: a stranger there.
        await c.hear(.line(id, participant: alice, language: "en", text: "from B, pretending"), from: b)
        #expect(try c.texts(id) == ["from A, really me"], "the host took a line from a box that never gave the password")
        #expect(try c.sent(to: b) == [.admission(id, participant: alice, verdict: .refused(.passwordNeeded))])
        await c.hear(.join(id, participant: alice, sealedPassword: nil), from: b)
        #expect(try c.sent(to: b) == [.admission(id, participant: alice, verdict: .refused(.passwordNeeded))])
        #expect(!(try await c.service.withStore { try $0.links(of: id, role: .participant) }).contains { $0.node == b },
                "nothing is relayed to B")
        // A's visitor is still inside through A.
        await c.hear(.line(id, participant: alice, language: "en", text: "still here"), from: a.me)
        #expect(try c.texts(id) == ["from A, really me", "still here"])
    }

    @Test("the host drops a line from a participant it never admitted and tells their box why")
    func lineFromStrangerDropped() async throws {
        let (a, c) = (try await MeshBottleBox("A"), try await MeshBottleBox("C"))
        defer { a.harness.remove(); c.harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try await c.hostOpened(id, conditions: [Self.password])
        let stranger = a.harness.participant(BottlesFixtures.bob, in: id)
        await c.hear(.line(id, participant: stranger, language: "en", text: "let me in"), from: a.me)
        #expect(try c.texts(id).isEmpty)
        #expect(!(try c.harness.store.participants(of: id)).contains { $0.participant == stranger })
        #expect(try c.sent(to: a.me) == [.admission(id, participant: stranger, verdict: .refused(.passwordNeeded))])
        #expect(!(try await c.service.withStore { try $0.links(of: id, role: .participant) }).contains { $0.node == a.me },
                "nothing is relayed to A")
    }

    @Test("lines from the mesh pass the visitor text rule: direction overrides removed, invisible-only dropped and counted, at the host and in the replica")
    func meshTextRule() async throws {
        let a = try await MeshBottleBox("A")
        var c = try await MeshBottleBox("C")
        defer { a.harness.remove(); c.harness.remove() }
        let id = BottlesFixtures.bottleID(1)
        try await c.hostOpened(id, conditions: [])
        await a.heardOpen(id, from: c, password: false)
        let alice = a.harness.participant(BottlesFixtures.alice, in: id)
        _ = await c.harness.takeEvents()

        // Another box's software sends what a page here could not: the host cleans it as its own API would.
        await c.hear(.line(id, participant: alice, language: "en", text: "gnp.\u{202E}exe \u{E0041}"), from: a.me)
        await c.hear(.line(id, participant: alice, language: "en", text: "\u{200B}\u{2060}\u{202E} \u{FEFF}"), from: a.me)
        #expect(try c.texts(id) == ["gnp.exe"])
        #expect(c.service.counters.refusedText == 1)
        // The first line joined Alice (the chat needs nothing): her box hears it, so she reads the lines there.
        #expect(try await c.carry(to: a) == [.admission(id, participant: alice, verdict: .admitted)])
        #expect(a.service.joinState(alice, in: id) == .answered(.admitted))
        // The host relays its cleaned line to A.
        for event in await c.harness.takeEvents() { await c.service.handle(event) }
        try await c.carry(to: a)
        #expect(try await a.replica(id) == ["gnp.exe"])

        // A host (or whoever holds its key) relaying raw text: the replica keeps the same rule.
        let someone = c.harness.participant(BottlesFixtures.bob, in: id)
        for text in ["\u{202E}txt.evil", "\u{200B}\u{200D}", "\u{E0001}\u{E0068}"] {
            await a.hear(.relay(id, message: MessageID.make(at: Date()), participant: someone, label: .local, sentAt: Date(),
                                language: "en", text: text), from: c.me)
        }
        #expect(try await a.replica(id) == ["gnp.exe", "txt.evil"])
        #expect(a.service.counters.refusedText == 2)
    }
}
