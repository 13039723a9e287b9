import Foundation

/// What a visitor at another box must bring to join a bottle's chat: the same proofs a
/// visitor here gives when they open it (`docs/mesh-bottles.md`, "Who may join from afar").
///
/// Ambient conditions (time, sun, weather, the box's position, delays) describe the host box
/// and held for everyone once the bottle opened. What proves something about the *visitor*
/// does not carry over: a password must be given again (sealed to the host, checked there
/// under the same limiter), and a presence press or a one-shot bottle can only be met in
/// person, so such a chat is neither announced nor joinable from afar.
public enum RemoteAccess: Equatable, Sendable {
    /// Anyone on the mesh may join.
    case open
    /// A visitor elsewhere must give the bottle's password.
    case password
    /// Only visitors at the host box (presence press, one-shot).
    case inPersonOnly

    public init(_ bottle: Bottle) {
        if bottle.isOneShot || bottle.conditions.contains(where: { $0.condition.kind == .presence }) {
            self = .inPersonOnly
        } else if bottle.conditions.contains(where: { $0.condition.kind == .password }) {
            self = .password
        } else {
            self = .open
        }
    }
}

/// The host's answer to a visitor at another box who asks to join (or writes in) a chat.
public enum RemoteAdmission: Equatable, Sendable {
    case admitted
    case refused(Refusal)

    /// Why the host said no, in the visitor's words.
    public enum Refusal: Equatable, Sendable {
        case passwordNeeded
        case wrongPassword
        case tooManyAttempts(retryAfterSeconds: Int)
        case inPersonOnly
        case chatClosed

        public var reason: String {
            switch self {
            case .passwordNeeded: "this chat needs the bottle's password"
            case .wrongPassword: "wrong password"
            case .tooManyAttempts(let seconds): "too many attempts; try again in \(Text.duration(Double(max(1, seconds))))"
            case .inPersonOnly: "this bottle's chat can only be joined at its box"
            case .chatClosed: "this chat has ended"
            }
        }
    }
}
