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
        // Gesture timing itself is tested with explicit times in Body/; this checks the wiring.
        // Short presses carry their own timestamps so a loaded machine cannot stretch them.
        let service = ButtonBehaviourService(
            events: events, ambient: ambient,
            settings: .init(longPress: .seconds(2), doublePressGap: .milliseconds(200), comboHold: .milliseconds(500)),
            effects: effects, logger: Logger(label: "test")
        )
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        func tap(_ button: String) {
            let t = MonotonicTime.now()
            buttons.yield(ButtonEvent(button: button, pressed: true, at: t))
            buttons.yield(ButtonEvent(button: button, pressed: false, at: t + .milliseconds(50)))
        }
        func hold(_ buttonsHeld: [String], for duration: Duration) async throws {
            let t = MonotonicTime.now()
            for button in buttonsHeld { buttons.yield(ButtonEvent(button: button, pressed: true, at: t)) }
            try await Task.sleep(for: duration)
            for button in buttonsHeld { buttons.yield(ButtonEvent(button: button, pressed: false, at: t + duration)) }
        }
        func waitForCalls(_ count: Int) async throws {
            for _ in 0..<500 where calls.withLock({ $0.count }) < count { try await Task.sleep(for: .milliseconds(10)) }
        }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            tap("presence")
            let presence = await collect(1, from: inputs, timeout: .seconds(10))
            if case .buttonPressed = presence.first {} else { Issue.record("expected a presence proof, got \(presence)") }
            try await Task.sleep(for: .milliseconds(400))
            tap("keep-alive")
            let keepAlive = await collect(1, from: inputs, timeout: .seconds(10))
            if case .keepAliveButtonPressed = keepAlive.first {} else { Issue.record("expected keep alive, got \(keepAlive)") }

            try await hold(["keep-alive"], for: .milliseconds(2300))
            try await waitForCalls(1)
            try await Task.sleep(for: .milliseconds(400))
            try await hold(["presence"], for: .milliseconds(2300))
            try await waitForCalls(2)
            try await Task.sleep(for: .milliseconds(400))
            try await hold(["presence", "keep-alive"], for: .milliseconds(800))
            try await waitForCalls(3)
            #expect(calls.withLock { $0 } == ["selftest", "status-code", "led-test"])
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
