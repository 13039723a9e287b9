import DriftDaemon
import DriftSystem
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

@Suite("Button gestures to actions")
struct ButtonBehaviourTests {
    @Test("press → presence proof and keep alive; long press → selftest and status code; combo → LED test")
    func actions() async throws {
        let (events, buttons) = AsyncStream<ButtonEvent>.makeStream()
        let (inputs, ambient) = AsyncStream<AmbientInput>.makeStream()
        let calls = Mutex<[String]>([])
        let effects = ButtonBehaviourService.Effects(
            showStatusCode: { _ in calls.withLock { $0.append("status-code") } },
            runSelftest: { _ in calls.withLock { $0.append("selftest") } },
            startLEDTest: { _ in calls.withLock { $0.append("led-test") } }
        )
        let service = ButtonBehaviourService(
            events: events, ambient: ambient,
            settings: .init(longPress: .milliseconds(300), doublePressGap: .milliseconds(100), comboHold: .milliseconds(200)),
            effects: effects, logger: Logger(label: "test")
        )
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        func press(_ button: String, hold: Duration) async throws {
            buttons.yield(ButtonEvent(button: button, pressed: true, at: MonotonicTime.now()))
            try await Task.sleep(for: hold)
            buttons.yield(ButtonEvent(button: button, pressed: false, at: MonotonicTime.now()))
        }
        func waitForCalls(_ count: Int) async throws {
            for _ in 0..<300 where calls.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(10)) }
        }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await press("presence", hold: .milliseconds(50))
            #expect(await collect(1, from: inputs, timeout: .seconds(5)).count == 1)
            try await Task.sleep(for: .milliseconds(200))
            try await press("keep-alive", hold: .milliseconds(50))
            let keepAlive = await collect(1, from: inputs, timeout: .seconds(5))
            if case .keepAliveButtonPressed = keepAlive.first {} else { Issue.record("expected keep alive, got \(keepAlive)") }

            try await press("keep-alive", hold: .milliseconds(500))
            try await waitForCalls(1)
            try await Task.sleep(for: .milliseconds(200))
            try await press("presence", hold: .milliseconds(500))
            try await waitForCalls(2)
            try await Task.sleep(for: .milliseconds(200))
            // Both buttons held together.
            buttons.yield(ButtonEvent(button: "presence", pressed: true, at: MonotonicTime.now()))
            buttons.yield(ButtonEvent(button: "keep-alive", pressed: true, at: MonotonicTime.now()))
            try await waitForCalls(3)
            buttons.yield(ButtonEvent(button: "presence", pressed: false, at: MonotonicTime.now()))
            buttons.yield(ButtonEvent(button: "keep-alive", pressed: false, at: MonotonicTime.now()))
            #expect(calls.withLock { $0 } == ["selftest", "status-code", "led-test"])
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
