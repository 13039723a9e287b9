import Foundation
import Logging
import ServiceLifecycle

/// What the box's buttons mean: a press of the presence button is a presence
/// proof for the visitor whose request is pending (handled by the lifecycle
/// processor). Keep-alive and the long presses for the field come with the
/// box-body work.
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
                default:
                    logger.debug("button has no behaviour yet", metadata: ["button": "\(event.button)"])
                }
            }
        }
    }
}
