/// What the box does for a button gesture.
public enum ButtonAction: String, Sendable, Hashable, CaseIterable {
    /// Fulfil the pending presence request: the visitor who asked gets a presence proof.
    case presenceProof = "presence-proof"
    /// Claim Keep Alive for the dying chats at this box.
    case keepAlive = "keep-alive"
    /// Run the selftest and show its result on the LEDs.
    case runSelftest = "selftest"
    /// Show the box's status blink code on the status LED.
    case showStatusCode = "status-code"
    /// Walk every LED once (lamp test).
    case ledTest = "led-test"
}
