import DriftSystem
import Hardware
import Logging
import ServiceLifecycle

/// A debounced press or release of one of the box's buttons.
public struct ButtonEvent: Sendable, Equatable {
    /// The button's role (`presence`, `keep-alive`).
    public var button: String
    /// `true` when pressed.
    public var pressed: Bool
    /// Monotonic time the level became stable.
    public var at: Duration

    public init(button: String, pressed: Bool, at: Duration) {
        self.button = button
        self.pressed = pressed
        self.at = at
    }
}

/// Reads the box's buttons from GPIO edge events, debounces them in software
/// (libgpiod v1 has no kernel debounce) and publishes stable presses.
///
/// Buttons are wired to ground with the internal pull-up, so lines are
/// requested `activeLow` with `.pullUp`: pressed reads as active.
public struct ButtonService: Service {
    let chip: GPIOChip
    let buttons: [(role: String, line: String)]
    let debounce: Duration
    let logger: Logger
    /// When a pending level becomes stable (on the scale of the edges' kernel timestamps).
    let clock: MonotonicClock
    let continuation: AsyncStream<ButtonEvent>.Continuation
    /// Debounced button events, for the behaviours built on them.
    public let events: AsyncStream<ButtonEvent>

    public init(chip: GPIOChip, buttons: [(role: String, line: String)], debounce: Duration, logger: Logger,
                clock: MonotonicClock = .system) {
        self.chip = chip
        self.clock = clock
        self.buttons = buttons
        self.debounce = debounce
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    enum Input: Sendable {
        case edge(role: String, GPIOEdgeEvent)
        case deadline(role: String)
    }

    public func run() async throws {
        var requests: [(role: String, request: GPIOInputRequest)] = []
        for button in buttons {
            do {
                let request = try chip.requestInput(named: [button.line], consumer: "driftd-\(button.role)", bias: .pullUp, activeLow: true)
                requests.append((button.role, request))
            } catch {
                logger.error("button line unavailable", metadata: ["button": "\(button.role)", "line": "\(button.line)", "error": "\(error)"])
            }
        }
        defer {
            for entry in requests { entry.request.release() }
            continuation.finish()
        }
        guard !requests.isEmpty else { return }
        var debouncers: [String: Debouncer] = [:]
        for entry in requests {
            let level = (try? entry.request.value()) ?? false
            debouncers[entry.role] = Debouncer(initialLevel: level, window: debounce)
        }
        let (inputs, inputContinuation) = AsyncStream<Input>.makeStream()
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await withDiscardingTaskGroup { group in
                    for entry in requests {
                        group.addTask {
                            do {
                                for try await event in entry.request.events() {
                                    inputContinuation.yield(.edge(role: entry.role, event))
                                }
                            } catch {
                                logger.error("button events ended", metadata: ["button": "\(entry.role)", "error": "\(error)"])
                            }
                        }
                    }
                    for await input in inputs {
                        let role: String
                        var change: Debouncer.Change?
                        switch input {
                        case .edge(let edgeRole, let event):
                            role = edgeRole
                            change = debouncers[role]?.feed(event)
                        case .deadline(let deadlineRole):
                            role = deadlineRole
                            change = debouncers[role]?.poll(now: clock.now())
                        }
                        if let change { publish(role: role, change: change) }
                        if let deadline = debouncers[role]?.deadline {
                            // Wake when the pending level would become stable.
                            group.addTask { [clock] in
                                try? await clock.sleep(until: deadline)
                                inputContinuation.yield(.deadline(role: role))
                            }
                        }
                    }
                    group.cancelAll()
                }
            } onCancel: {
                inputContinuation.finish()
            }
        } onGracefulShutdown: {
            inputContinuation.finish()
        }
    }

    private func publish(role: String, change: Debouncer.Change) {
        logger.info("button \(change.level ? "pressed" : "released")", metadata: ["button": "\(role)"])
        continuation.yield(ButtonEvent(button: role, pressed: change.level, at: change.at))
    }
}
