import Foundation
import Logging
import ServiceLifecycle

/// What the box's buttons mean: a press of the presence button is a presence
/// proof for the visitor whose request is pending; a press of the keep-alive
/// button claims Keep Alive for the dying chats at this box (both handled by
/// the lifecycle processor). The long presses and combos for the field come
/// with the selftest work.
public struct ButtonBehaviourService: Service {
    let events: AsyncStream<ButtonEvent>
    let ambient: AsyncStream<AmbientInput>.Continuation
    let logger: Logger

    public init(events: AsyncStream<ButtonEvent>, ambient: AsyncStream<AmbientInput>.Continuation, logger: Logger) {
        self.events = events
        self.ambient = ambient
        self.logger = logger
    }

    public func run() async throws {
        // Stops at graceful shutdown (it is stopped before the button service, whose
        // end would otherwise be what finishes `events`).
        await cancelWhenGracefulShutdown {
            for await event in events where event.pressed {
                switch event.button {
                case "presence":
                    ambient.yield(.buttonPressed(at: Date()))
                case "keep-alive":
                    ambient.yield(.keepAliveButtonPressed(at: Date()))
                default:
                    logger.debug("button has no behaviour yet", metadata: ["button": "\(event.button)"])
                }
            }
        }
    }
}
