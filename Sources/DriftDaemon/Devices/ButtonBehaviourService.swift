import DriftSystem
import Foundation
import Logging
import ServiceLifecycle

/// What the box's buttons mean. Debounced presses go through the gesture
/// recogniser (press, double press, long press, combo) and the board's button
/// mapping (`ButtonMapping.standard` by default) to an action:
///
/// | action | effect |
/// | --- | --- |
/// | presence proof | counts towards the burst of presses that proves a waiting visitor's presence |
/// | keep alive | the box claims Keep Alive for every dying chat here |
/// | status code | the status LED shows the current fault's blink code (steady when healthy) |
/// | selftest | a check of the running box (loops, faults, data directory, database); result on the status LED for 5 s |
/// | LED test | each LED lit in turn |
public struct ButtonBehaviourService: Service {
    /// What the actions act on.
    public struct Effects: Sendable {
        public var showStatusCode: @Sendable (Duration) -> Void
        public var runSelftest: @Sendable (Duration) async -> Void
        public var startLEDTest: @Sendable (Duration) -> Void

        public init(
            showStatusCode: @escaping @Sendable (Duration) -> Void = { _ in },
            runSelftest: @escaping @Sendable (Duration) async -> Void = { _ in },
            startLEDTest: @escaping @Sendable (Duration) -> Void = { _ in }
        ) {
            self.showStatusCode = showStatusCode
            self.runSelftest = runSelftest
            self.startLEDTest = startLEDTest
        }
    }

    let events: AsyncStream<ButtonEvent>
    let ambient: AsyncStream<AmbientInput>.Continuation
    let mapping: ButtonMapping
    let settings: ButtonGestureRecognizer.Settings
    let effects: Effects
    let logger: Logger
    /// Gesture deadlines (long press, double-press gap, combo hold) run on this clock.
    let clock: MonotonicClock

    public init(
        events: AsyncStream<ButtonEvent>, ambient: AsyncStream<AmbientInput>.Continuation,
        mapping: ButtonMapping = .standard, settings: ButtonGestureRecognizer.Settings = .init(),
        effects: Effects = Effects(), logger: Logger, clock: MonotonicClock = .system
    ) {
        self.clock = clock
        self.events = events
        self.ambient = ambient
        self.mapping = mapping
        self.settings = settings
        self.effects = effects
        self.logger = logger
    }

    enum Input: Sendable {
        case button(ButtonEvent)
        case deadline
    }

    public func run() async throws {
        let (inputs, continuation) = AsyncStream<Input>.makeStream()
        // Stops at graceful shutdown (it is stopped before the button service, whose
        // end would otherwise be what finishes `events`).
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await withDiscardingTaskGroup { group in
                    group.addTask {
                        for await event in events { continuation.yield(.button(event)) }
                        continuation.finish()
                    }
                    var recognizer = ButtonGestureRecognizer(settings: settings)
                    for await input in inputs {
                        let gestures: [ButtonGesture]
                        switch input {
                        case .button(let event):
                            // Every press of the presence button counts towards the visitor's press
                            // count (PresenceBinder), however the recogniser groups the presses.
                            if event.pressed, mapping.presenceButtons.contains(event.button) {
                                ambient.yield(.buttonPressed(at: Date()))
                            }
                            gestures = recognizer.handle(button: event.button, pressed: event.pressed, at: event.at)
                        case .deadline:
                            gestures = recognizer.poll(now: clock.now())
                        }
                        for gesture in gestures { await perform(gesture) }
                        if let deadline = recognizer.deadline {
                            group.addTask { [clock] in
                                try? await clock.sleep(until: deadline)
                                continuation.yield(.deadline)
                            }
                        }
                    }
                    group.cancelAll()
                }
            } onCancel: {
                continuation.finish()
            }
        } onGracefulShutdown: {
            continuation.finish()
        }
    }

    func perform(_ gesture: ButtonGesture) async {
        guard let action = mapping.action(for: gesture) else {
            logger.debug("button gesture has no action", metadata: ["gesture": "\(gesture)"])
            return
        }
        logger.info("button action", metadata: ["gesture": "\(gesture)", "action": "\(action.rawValue)"])
        let now = clock.now()
        switch action {
        case .presenceProof:
            // A plain press of a presence button was counted when it went down.
            if case .press(let button) = gesture, mapping.presenceButtons.contains(button) { return }
            ambient.yield(.buttonPressed(at: Date()))
        case .keepAlive: ambient.yield(.keepAliveButtonPressed(at: Date()))
        case .showStatusCode: effects.showStatusCode(now)
        case .runSelftest: await effects.runSelftest(now)
        case .ledTest: effects.startLEDTest(now)
        }
    }
}
