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
        let (calls, call) = AsyncStream<String>.makeStream()
        let effects = ButtonBehaviourService.Effects(
            showStatusCode: { _ in call.yield("status-code") },
            runSelftest: { _ in call.yield("selftest") },
            startLEDTest: { _ in call.yield("led-test") }
        )
        // Gesture timing itself is tested with explicit times in Body/; this checks the wiring,
        // on a manual clock: time moves only when the test moves it.
        let clock = ManualClock()
        let monotonic = MonotonicClock(clock, start: .seconds(100))
        let service = ButtonBehaviourService(
            events: events, ambient: ambient,
            settings: .init(longPress: .seconds(2), doublePressGap: .milliseconds(200), comboHold: .milliseconds(500)),
            effects: effects, logger: Logger(label: "test"), clock: monotonic
        )
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        /// A 50 ms press; returns once both edges are handled (each leaves a deadline to wait for).
        func tap(_ button: String) async {
            let begun = clock.sleepsBegun
            let t = monotonic.now()
            buttons.yield(ButtonEvent(button: button, pressed: true, at: t))
            buttons.yield(ButtonEvent(button: button, pressed: false, at: t + .milliseconds(50)))
            await clock.waitForSleepsBegun(begun + 2)
        }
        /// Holds the buttons for `duration` of manual time.
        func hold(_ buttonsHeld: [String], for duration: Duration) async {
            let begun = clock.sleepsBegun
            let t = monotonic.now()
            for button in buttonsHeld { buttons.yield(ButtonEvent(button: button, pressed: true, at: t)) }
            await clock.waitForSleepsBegun(begun + buttonsHeld.count)
            clock.advance(by: duration)
            for button in buttonsHeld { buttons.yield(ButtonEvent(button: button, pressed: false, at: t + duration)) }
        }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await tap("presence")
            let presence = await collect(1, from: inputs, timeout: .seconds(30))
            if case .buttonPressed = presence.first {} else { Issue.record("expected a presence proof, got \(presence)") }
            clock.advance(by: .milliseconds(400))
            await tap("keep-alive")
            clock.advance(by: .milliseconds(400))  // past the double-press gap: a single press
            let keepAlive = await collect(1, from: inputs, timeout: .seconds(30))
            if case .keepAliveButtonPressed = keepAlive.first {} else { Issue.record("expected keep alive, got \(keepAlive)") }

            var performed: [String] = []
            await hold(["keep-alive"], for: .milliseconds(2300))
            performed += await collect(1, from: calls, timeout: .seconds(30))
            clock.advance(by: .milliseconds(400))
            await hold(["presence"], for: .milliseconds(2300))
            performed += await collect(1, from: calls, timeout: .seconds(30))
            clock.advance(by: .milliseconds(400))
            await hold(["presence", "keep-alive"], for: .milliseconds(800))
            performed += await collect(1, from: calls, timeout: .seconds(30))
            #expect(performed == ["selftest", "status-code", "led-test"])
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
