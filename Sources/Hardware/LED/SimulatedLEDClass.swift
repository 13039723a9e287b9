import DriftSystem
import Foundation

/// The sim board's kernel LEDs: a directory laid out like `/sys/class/leds` (one directory per
/// LED with `brightness`, `max_brightness` and `trigger`, as `dtoverlay=gpio-led` makes them on
/// a Pi), written by ``KernelLED`` exactly as sysfs would be, and read back by ``level(of:at:)``
/// the way the kernel's `pattern` trigger would drive the line.
///
/// It stands in for the kernel at the lowest boundary: the daemon's code above it is the code
/// a real box runs.
public struct SimulatedLEDClass: Sendable {
    /// The class directory (e.g. `<data_dir>/sim/leds`).
    public let root: String

    public init(root: String) {
        self.root = root
    }

    /// Creates (or resets) the LED directories `names`, dark and without a trigger, offering the
    /// triggers a Raspberry Pi kernel with `CONFIG_LEDS_TRIGGER_PATTERN` lists.
    public func install(_ names: [String], withPattern: Bool = true) throws {
        try Self.makeOwnerOnlyDirectory(root)
        for name in names {
            // Owner-only, like everything under a box's data directory (selftest checks that).
            let directory = root + "/" + name
            try Self.makeOwnerOnlyDirectory(directory)
            for stale in ["pattern", "repeat"] { try? FileManager.default.removeItem(atPath: directory + "/" + stale) }
            let triggers = withPattern ? "[none] timer heartbeat default-on pattern\n" : "[none] timer heartbeat default-on\n"
            for (file, text) in [("brightness", "0\n"), ("max_brightness", "1\n"), ("trigger", triggers)] {
                let path = directory + "/" + file
                try Data(text.utf8).write(to: URL(fileURLWithPath: path))
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            }
        }
    }

    /// Creates `path` and any missing parents, each `0700`; existing ones stay as they are.
    private static func makeOwnerOnlyDirectory(_ path: String) throws {
        var missing: [String] = []
        var current = URL(fileURLWithPath: path).standardizedFileURL
        while !FileManager.default.fileExists(atPath: current.path), current.path != "/" {
            missing.append(current.path)
            current.deleteLastPathComponent()
        }
        for directory in missing.reversed() {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }
    }

    /// The LED's level at `date`: its `brightness` when no trigger runs; with the `pattern`
    /// trigger, the pattern played from the moment `pattern` was last written.
    public func level(of name: String, at date: Date = Date()) throws -> Bool {
        let directory = root + "/" + name
        let trigger = try KernelLED.read(directory + "/trigger").trimmingCharacters(in: .whitespacesAndNewlines)
        let maximum = Int(try KernelLED.read(directory + "/max_brightness").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 1
        guard trigger == "pattern" || trigger.contains("[pattern]") else {
            let brightness = Int(try KernelLED.read(directory + "/brightness").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            return brightness > 0
        }
        let path = directory + "/pattern"
        let text = try KernelLED.read(path)
        let started = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date ?? date
        let brightness = Self.brightness(pattern: text, at: .milliseconds(Int64(max(0, date.timeIntervalSince(started)) * 1000)))
        return brightness.map { $0 * 2 >= Double(maximum) } ?? false
    }

    /// The brightness a repeating `pattern` ("brightness duration" pairs) has `elapsed` after it
    /// started: linear from each pair to the next over the first one's duration, as
    /// `ledtrig-pattern` does; `nil` for a malformed pattern (the kernel refuses those).
    public static func brightness(pattern: String, at elapsed: Duration) -> Double? {
        let numbers = pattern.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard numbers.count >= 2, numbers.count.isMultiple(of: 2) else { return nil }
        let pairs = stride(from: 0, to: numbers.count, by: 2).map { (brightness: numbers[$0], milliseconds: numbers[$0 + 1]) }
        let period = pairs.reduce(0) { $0 + $1.milliseconds }
        guard period > 0 else { return Double(pairs[0].brightness) }
        var t = Int(elapsed / .milliseconds(1)) % period
        for (index, pair) in pairs.enumerated() {
            if t < pair.milliseconds {
                let next = pairs[(index + 1) % pairs.count].brightness
                return Double(pair.brightness) + Double(next - pair.brightness) * Double(t) / Double(pair.milliseconds)
            }
            t -= pair.milliseconds
        }
        return Double(pairs[pairs.count - 1].brightness)
    }
}
