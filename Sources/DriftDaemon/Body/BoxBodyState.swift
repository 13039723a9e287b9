/// What the LEDs show, gathered from the box's services (the input of ``LEDMapping``).
public struct BoxBodyState: Sendable, Equatable {
    /// GPS as the GPS LED shows it.
    public enum GPS: Sendable, Equatable {
        /// A position fix.
        case fix
        /// The module answers but has no fix yet.
        case searching
        /// No module answers (not configured, unplugged, wrong port).
        case absent
    }

    /// Faults present now.
    public var faults: Set<FaultClass>
    /// A main loop is stalled (watchdog pings stopped): overrides the blink code.
    public var loopsStalled: Bool
    /// Bottles that can be opened here now.
    public var openableBottles: Int
    /// A chat at this box is alive.
    public var chatAlive: Bool
    /// The shortest remaining time of the dying chats at this box, if any is dying.
    public var dyingChatRemaining: Duration?
    /// Monotonic time of the last radio send or receive, if any.
    public var lastRadioActivity: Duration?
    public var gps: GPS
    /// A request (button or selftest) to show a blink code in place of the status
    /// LED's normal pattern, until the given monotonic time.
    public var statusOverride: StatusOverride?

    /// A temporary status LED display.
    public struct StatusOverride: Sendable, Equatable {
        public var pattern: LEDPattern
        public var until: Duration

        public init(pattern: LEDPattern, until: Duration) {
            self.pattern = pattern
            self.until = until
        }
    }

    public init(
        faults: Set<FaultClass> = [],
        loopsStalled: Bool = false,
        openableBottles: Int = 0,
        chatAlive: Bool = false,
        dyingChatRemaining: Duration? = nil,
        lastRadioActivity: Duration? = nil,
        gps: GPS = .absent,
        statusOverride: StatusOverride? = nil
    ) {
        self.faults = faults
        self.loopsStalled = loopsStalled
        self.openableBottles = openableBottles
        self.chatAlive = chatAlive
        self.dyingChatRemaining = dyingChatRemaining
        self.lastRadioActivity = lastRadioActivity
        self.gps = gps
        self.statusOverride = statusOverride
    }
}
