import DriftSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An LED of the kernel's LED class: a directory `/sys/class/leds/NAME` with `brightness`,
/// `max_brightness` and `trigger` (on a Pi, what `dtoverlay=gpio-led,gpio=18,label=NAME`
/// makes of a GPIO line; docs/leds-and-buttons.md, "Kernel LEDs").
///
/// Its point is ``play(_:)``: with the kernel's `pattern` trigger (`ledtrig-pattern`,
/// `CONFIG_LEDS_TRIGGER_PATTERN`) the kernel blinks the LED on its own timer, and the daemon
/// wakes for nothing while a pattern repeats. Without that trigger ``canPlay`` is `false` and
/// the caller blinks it through ``set(_:)`` as it would a GPIO line.
///
/// The sysfs protocol (Documentation/leds/ledtrig-pattern.rst): `pattern` in `trigger` makes
/// the kernel add `pattern` and `repeat`; "brightness duration" pairs in `pattern` start it
/// (brightness moves linearly from one pair to the next over the first one's duration, so a
/// square wave has zero-length steps: `1 100 1 0 0 700 0 0` is 100 ms on, 700 ms off).
/// With the trigger, a steady level is a pattern too (`1 60000 1 0`): the trigger is set once
/// and never left, because the files it adds are new each time it is set, and only the first
/// ones are given to the `gpio` group (the image's udev rule, docs/leds-and-buttons.md).
public final class KernelLED: Sendable {
    /// The LED's name (its directory under the class root).
    public let name: String
    /// Its directory, e.g. `/sys/class/leds/drift-status`.
    public let directory: String
    /// `max_brightness`: "on" is written as this.
    public let maximumBrightness: Int
    /// Whether the kernel offers the `pattern` trigger for this LED.
    public let canPlay: Bool
    /// What the LED does now, so that repeated requests write nothing.
    private let current = Mutex<Mode?>(nil)

    private enum Mode: Equatable {
        case level(Bool)
        case pattern(String)
    }

    /// The kernel's LED class directory.
    public static let classRoot = "/sys/class/leds"

    /// Opens `root/name`, and sets the `pattern` trigger when the kernel offers it; throws when
    /// the LED does not exist there or the trigger cannot be set.
    public init(name: String, root: String = KernelLED.classRoot) throws(SystemError) {
        self.name = name
        directory = root + "/" + name
        let maximum = try Self.read(directory + "/max_brightness")
        maximumBrightness = max(1, maximum.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 1)
        // `trigger` lists every trigger, the active one in brackets: "none [timer] pattern …".
        let triggers = try Self.read(directory + "/trigger").split(whereSeparator: \.isWhitespace)
        canPlay = triggers.contains { $0 == "pattern" || $0 == "[pattern]" }
        if canPlay, !triggers.contains("[pattern]") {
            try write("pattern", to: "trigger")
        }
    }

    /// Whether an LED named `name` exists under `root`.
    public static func exists(_ name: String, root: String = KernelLED.classRoot) -> Bool {
        access(root + "/" + name + "/max_brightness", R_OK) == 0
    }

    /// Holds the LED at one level: a constant pattern, or `brightness` without the trigger.
    public func set(_ on: Bool) throws(SystemError) {
        if canPlay {
            try play([(on, .seconds(60))])
            return
        }
        try change(to: .level(on)) { () throws(SystemError) in
            try write(on ? String(maximumBrightness) : "0", to: "brightness")
        }
    }

    /// Hands a repeating square wave to the kernel, starting now with its first segment.
    /// - Precondition: ``canPlay``; segments non-empty with positive durations.
    public func play(_ segments: [(level: Bool, duration: Duration)]) throws(SystemError) {
        let text = Self.patternText(segments, maximumBrightness: maximumBrightness)
        try change(to: .pattern(text)) { () throws(SystemError) in
            try write("-1", to: "repeat")
            try write(text, to: "pattern")
        }
    }

    /// Leaves the LED dark and without a trigger (on stop: a dead daemon shows no heartbeat).
    public func turnOff() {
        try? set(false)
    }

    /// The `pattern` file's text for `segments`: each level held for its duration (whole
    /// milliseconds, at least 1), then a zero-length step to the next.
    public static func patternText(_ segments: [(level: Bool, duration: Duration)], maximumBrightness: Int = 1) -> String {
        segments.map { segment in
            let brightness = segment.level ? maximumBrightness : 0
            let milliseconds = max(1, Int((segment.duration / .milliseconds(1)).rounded()))
            return "\(brightness) \(milliseconds) \(brightness) 0"
        }.joined(separator: " ")
    }

    private func change(to mode: Mode, _ apply: () throws(SystemError) -> Void) throws(SystemError) {
        guard current.withLock({ $0 }) != mode else { return }
        do {
            try apply()
            current.withLock { $0 = mode }
        } catch {
            current.withLock { $0 = nil }   // unknown state: the next request writes again
            throw error
        }
    }

    private func write(_ text: String, to attribute: String) throws(SystemError) {
        let path = directory + "/" + attribute
        // O_CREAT: a simulated class directory (the sim board) grows `pattern` and `repeat` the
        // way the kernel does when the trigger is set; on sysfs they exist by then.
        let descriptor = try FileDescriptor.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
        defer { try? descriptor.close() }
        try descriptor.writeAll(Array(text.utf8))
    }

    /// The whole text of a (small) file.
    public static func read(_ path: String) throws(SystemError) -> String {
        let descriptor = try FileDescriptor.open(path, flags: O_RDONLY)
        defer { try? descriptor.close() }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let result: Result<Int, SystemError> = buffer.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) -> Int in try descriptor.read(into: raw) ?? 0 }
            }
            let count = try result.get()
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
