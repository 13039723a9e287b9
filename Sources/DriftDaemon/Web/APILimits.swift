/// Body sizes and request rates of the visitor API. The defaults suit a drop-box with a
/// handful of visitors at a time; tests use tighter ones.
public struct APILimits: Sendable, Equatable {
    /// JSON bodies, bytes.
    public var jsonBodyBytes = 64 * 1024
    /// An image upload (the domain's 3 MiB), bytes.
    public var imageBodyBytes = 3 * 1024 * 1024
    /// An audio upload (the domain's 2 MiB), bytes.
    public var audioBodyBytes = 2 * 1024 * 1024

    /// Whether the per-client-address rules apply (off for load tests from one machine).
    public var perClient = true

    /// Connection caps and deadlines at the door (``VisitorDoor``).
    public var door = VisitorDoor.Limits()

    /// New device tokens, per client address.
    public var newVisitor = RateLimiter.Rule(burst: 20, perHour: 60)
    /// Creating and changing bottles and uploading their media, per token and per address.
    public var createPerToken = RateLimiter.Rule(burst: 20, perHour: 60)
    public var createPerClient = RateLimiter.Rule(burst: 60, perHour: 240)
    /// Open attempts (password guessing), per token and per address. The domain's
    /// `PasswordRateLimiter` also limits guesses per visitor and bottle.
    public var openPerToken = RateLimiter.Rule(burst: 20, perHour: 240)
    public var openPerClient = RateLimiter.Rule(burst: 60, perHour: 900)
    /// Chat lines and attachments, per token and per address.
    public var postPerToken = RateLimiter.Rule(burst: 20, perHour: 900)
    public var postPerClient = RateLimiter.Rule(burst: 120, perHour: 3600)
    /// Presence requests, Keep Alive and watches, per token.
    public var actionPerToken = RateLimiter.Rule(burst: 20, perHour: 600)
    /// Presence requests per address, whatever the token: a request holds one of the five
    /// press counts for a minute, so one phone minting tokens could otherwise keep every count
    /// taken and everyone at the box waiting. Six at once, then two a minute: enough for a
    /// family at the box, too few to hold more than about two counts for long.
    public var presencePerClient = RateLimiter.Rule(burst: 6, perHour: 120)

    /// How long an uploaded chat attachment waits for its message.
    public var attachmentLifetime: Double = 600
    /// How long a visitor counts as present after opening, until their live chat connects.
    public var presenceGrace: Double = 20

    public init() {}
}
