/// Which built-in button mapping a board starts from (`buttons.mapping`).
public enum ButtonMappingPreset: String, Sendable, Equatable, Hashable, CaseIterable {
    /// Two buttons: presence press = presence proof, keep-alive press = keep alive,
    /// presence long = status code, keep-alive long = selftest, both held = LED test.
    case standard
    /// One button (the presence line) does the field work too: press = presence proof,
    /// double press = keep alive, long = status code.
    case single
    /// Nothing mapped: only the per-gesture keys below act.
    case none
}

/// What a button gesture does (`buttons.presence_press` and the other gesture keys);
/// the values match the daemon's button actions, plus `none` to unmap a gesture.
public enum ButtonActionName: String, Sendable, Equatable, Hashable, CaseIterable {
    case presenceProof = "presence-proof"
    case keepAlive = "keep-alive"
    case selftest
    case statusCode = "status-code"
    case ledTest = "led-test"
    case none
}

extension DriftConfiguration.Buttons {
    /// The per-gesture override keys under `[buttons]` and the gesture each names
    /// (`BUTTON.press`, `BUTTON.double`, `BUTTON.long`, `A+B` for both held, names sorted).
    public static let gestureKeys: [(key: String, gesture: String)] = [
        ("presence_press", "presence.press"),
        ("presence_double", "presence.double"),
        ("presence_long", "presence.long"),
        ("keep_alive_press", "keep-alive.press"),
        ("keep_alive_double", "keep-alive.double"),
        ("keep_alive_long", "keep-alive.long"),
        ("both_long", "keep-alive+presence"),
    ]

    /// Reads `mapping` and the gesture keys that are present (absent keys keep the preset's action).
    static func readMapping(_ r: SectionReader) -> (ButtonMappingPreset, [String: ButtonActionName]) {
        let preset: ButtonMappingPreset = r.choice("mapping", default: .standard)
        var overrides: [String: ButtonActionName] = [:]
        for (key, gesture) in gestureKeys {
            let present = r.entries[key] != nil
            let action: ButtonActionName = r.choice(key, default: ButtonActionName.none)
            if present, r.decoder.hasNoIssue("\(r.table).\(key)") { overrides[gesture] = action }
        }
        return (preset, overrides)
    }
}
