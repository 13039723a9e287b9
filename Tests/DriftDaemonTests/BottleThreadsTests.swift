import DriftCore
import DriftStore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import TestSupport

@testable import DriftDaemon

/// The bottle processor's threads end with its service: its own, the read lane's and the
/// password hashing pool's.
@Suite("Bottle processor: its threads")
struct BottleThreadsTests {
    /// A hasher that notes which thread hashed.
    final class ThreadNotingHasher: PasswordHashing {
        let inner = PasswordHasher(iterations: 1_000)
        let threads = Mutex<[Int]>([])
        var iterations: Int { inner.iterations }

        func hash(_ password: String) throws(DomainValidationError) -> PasswordHash {
            if let id = try? OSThreads.currentID() { threads.withLock { $0.append(id) } }
            return try inner.hash(password)
        }

        func verify(_ attempt: String, against stored: PasswordHash) -> Bool { inner.verify(attempt, against: stored) }
    }

    @Test("the lifecycle service's shutdown ends and joins the processor's, the read lane's and the hashing pool's threads",
          .timeLimit(.minutes(1)))
    func shutdownJoins() async throws {
        let directory = try TemporaryDirectory(prefix: "bottle-threads")
        defer { directory.remove() }
        let database = try DriftDatabase.open(path: directory.appending("drift.sqlite"))
        let hasher = ThreadNotingHasher()
        var settings = BottlesFixtures.settings
        settings.passwordHasher = hasher
        let (inputs, _) = AsyncStream.makeStream(of: AmbientInput.self)
        let service = BottleLifecycleService(database: database, dataDirectory: directory.path, settings: settings,
                                             events: EventBus(), inputs: inputs, logger: Logger(label: "test"), interval: .seconds(3600))
        let processor = service.processor
        let group = ServiceGroup(services: [service], gracefulShutdownSignals: [], logger: Logger(label: "test"))
        var threads: [String: Int] = [:]
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            threads["bottles"] = try await processor.withStore { _ in try OSThreads.currentID() }
            threads["bottle-reads"] = try await processor.read { _ in try OSThreads.currentID() }
            _ = try await processor.passwordHashing.hash("a secret")
            let passwords = try #require(hasher.threads.withLock { $0.first })
            threads["passwords"] = passwords
            for (name, id) in threads {
                #expect(OSThreads.name(of: id)?.hasPrefix(name) == true, "\(name): \(String(describing: OSThreads.name(of: id)))")
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        for (name, id) in threads {
            #expect(await OSThreads.waitUntilGone(id), "the \(name) thread outlived the service")
        }
    }
}
