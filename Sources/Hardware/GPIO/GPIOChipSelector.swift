/// How a board profile names a GPIO chip.
///
/// Kernel chip numbers are not stable (the Pi 5 header chip moved from
/// `gpiochip4` to `gpiochip0`), so profiles should name chips by label
/// (`"label:pinctrl-rp1"`) or locate lines by name (``GPIOChip/locateLine(named:driver:)``).
public enum GPIOChipSelector: Sendable, Hashable, CustomStringConvertible {
    /// A device path, e.g. `/dev/gpiochip0`.
    case path(String)
    /// A kernel name, e.g. `gpiochip0` (opens `/dev/gpiochip0`).
    case name(String)
    /// A driver label, e.g. `pinctrl-rp1`.
    case label(String)
    /// Tried as a path (if it contains `/`), then as a name (if it does not), then as a label.
    case any(String)

    /// Parses `"label:X"`, `"name:X"`, `"path:X"`, or a plain string (``any(_:)``).
    public init(parsing text: String) {
        if let rest = Self.strip("label:", from: text) {
            self = .label(rest)
        } else if let rest = Self.strip("name:", from: text) {
            self = .name(rest)
        } else if let rest = Self.strip("path:", from: text) {
            self = .path(rest)
        } else {
            self = .any(text)
        }
    }

    /// The text a user would write for this selector.
    public var description: String {
        switch self {
        case .path(let path): "path:\(path)"
        case .name(let name): "name:\(name)"
        case .label(let label): "label:\(label)"
        case .any(let text): text
        }
    }

    /// The concrete selectors to try, in order, for ``any(_:)``; itself otherwise.
    var candidates: [GPIOChipSelector] {
        guard case .any(let text) = self else { return [self] }
        return text.contains("/") ? [.path(text), .label(text)] : [.name(text), .label(text)]
    }

    private static func strip(_ prefix: String, from text: String) -> String? {
        text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : nil
    }
}
