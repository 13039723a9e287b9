/// How an LED shows something over time. A pure function of the time since
/// the pattern started: ``level(at:)`` and ``nextChange(after:)``, so an LED
/// driver sets the level, sleeps until the next change, and tests use
/// explicit times.
///
/// | pattern | timing (one cycle) |
/// | --- | --- |
/// | `off` / `steady` | constant |
/// | `slowBlink` | 1 s on, 1 s off |
/// | `fastBlink` | 125 ms on, 125 ms off (4 Hz) |
/// | `heartbeat` | 100 on, 100 off, 100 on, 700 off (ms): a double beat each second |
/// | `pulse` | 2 s "breathing" by software PWM: 20 ms frames, duty up 0→100 % and down in 10 % steps |
/// | `blinkCode(n)` | n × (300 ms on, 300 ms off), then 1.5 s more off; repeats |
/// | `blink(on:off:)` | on, off; repeats |
/// | `flash(d)` | on for d once, then off for good |
public enum LEDPattern: Sendable, Hashable, CustomStringConvertible {
    case off
    case steady
    case slowBlink
    case fastBlink
    case heartbeat
    case pulse
    /// `n` flashes (1…``maximumBlinkCode``), a pause, repeat; out-of-range `n` is clamped.
    case blinkCode(Int)
    /// A custom symmetric or asymmetric blink (both durations positive).
    case blink(on: Duration, off: Duration)
    /// One flash from the pattern's start (e.g. radio activity).
    case flash(Duration)

    /// The longest blink code: more flashes cannot be counted reliably.
    public static let maximumBlinkCode = 9
    /// Blink code flash and gap.
    public static let codeFlash = Duration.milliseconds(300)
    /// Blink code pause after the last flash's gap (so the gap between groups is 1.8 s).
    public static let codePause = Duration.milliseconds(1500)
    /// Software PWM frame of ``pulse``.
    public static let pwmFrame = Duration.milliseconds(20)
    /// Frames in one ``pulse`` cycle (2 s).
    public static let pulseFrames = 100

    public var description: String {
        switch self {
        case .off: return "off"
        case .steady: return "steady"
        case .slowBlink: return "slow blink"
        case .fastBlink: return "fast blink"
        case .heartbeat: return "heartbeat"
        case .pulse: return "pulse"
        case .blinkCode(let n): return "blink code \(n)"
        case .blink(let on, let off): return "blink \(on) on / \(off) off"
        case .flash(let duration): return "flash \(duration)"
        }
    }

    /// One cycle as (level, duration) segments, adjacent levels merged; empty for constants.
    public var cycle: [(level: Bool, duration: Duration)] {
        let ms = Duration.milliseconds
        switch self {
        case .off, .steady, .flash:
            return []
        case .slowBlink:
            return [(true, ms(1000)), (false, ms(1000))]
        case .fastBlink:
            return [(true, ms(125)), (false, ms(125))]
        case .heartbeat:
            return [(true, ms(100)), (false, ms(100)), (true, ms(100)), (false, ms(700))]
        case .pulse:
            return Self.pulseCycle
        case .blinkCode(let n):
            let count = min(max(n, 1), Self.maximumBlinkCode)
            var segments: [(level: Bool, duration: Duration)] = []
            for index in 0..<count {
                segments.append((true, Self.codeFlash))
                segments.append((false, index == count - 1 ? Self.codeFlash + Self.codePause : Self.codeFlash))
            }
            return segments
        case .blink(let on, let off):
            return [(true, max(on, ms(1))), (false, max(off, ms(1)))]
        }
    }

    /// Duty (0…10 tenths) of pulse frame `index` (0..<100): a triangle in 10 % steps.
    public static func pulseDuty(frame index: Int) -> Int {
        let half = pulseFrames / 2
        let position = index < half ? index : pulseFrames - 1 - index  // 0…49 up, 49…0 down
        return min(10, position * 11 / half)
    }

    /// The pulse cycle, computed once (it has ~200 segments).
    private static let pulseCycle = merged(pulseSegments())

    private static func pulseSegments() -> [(level: Bool, duration: Duration)] {
        var segments: [(level: Bool, duration: Duration)] = []
        for frame in 0..<pulseFrames {
            let on = pwmFrame * pulseDuty(frame: frame) / 10
            if on > .zero { segments.append((true, on)) }
            if on < pwmFrame { segments.append((false, pwmFrame - on)) }
        }
        return segments
    }

    private static func merged(_ segments: [(level: Bool, duration: Duration)]) -> [(level: Bool, duration: Duration)] {
        var result: [(level: Bool, duration: Duration)] = []
        for segment in segments {
            if let last = result.last, last.level == segment.level {
                result[result.count - 1].duration += segment.duration
            } else {
                result.append(segment)
            }
        }
        return result
    }

    /// Length of one cycle; `nil` for patterns that do not repeat.
    public var period: Duration? {
        let segments = cycle
        guard !segments.isEmpty else { return nil }
        return segments.reduce(.zero) { $0 + $1.duration }
    }

    /// The LED's level `t` after the pattern started (negative `t` counts as 0).
    public func level(at t: Duration) -> Bool {
        let t = max(t, .zero)
        switch self {
        case .off: return false
        case .steady: return true
        case .flash(let duration): return t < duration
        default:
            let segments = cycle
            return segments[Self.segment(segments, at: t).index].level
        }
    }

    /// The first time after `t` at which the level changes; `nil` if it never does again.
    public func nextChange(after t: Duration) -> Duration? {
        let t = max(t, .zero)
        switch self {
        case .off, .steady: return nil
        case .flash(let duration): return t < duration ? duration : nil
        default:
            let segments = cycle
            let (index, end) = Self.segment(segments, at: t)
            let level = segments[index].level
            // Segments are merged, so the level changes at the end of this one,
            // unless the cycle wraps onto a segment of the same level.
            var boundary = end
            var next = (index + 1) % segments.count
            for _ in 0..<segments.count {
                if segments[next].level != level { return boundary }
                boundary += segments[next].duration
                next = (next + 1) % segments.count
            }
            return nil
        }
    }

    /// The shortest segment handed to a kernel LED's `pattern` trigger: the kernel times each
    /// step in jiffies (4 ms at `HZ=250`), so shorter ones (``pulse``'s PWM) blink in software.
    public static let shortestKernelSegment = Duration.milliseconds(20)

    /// One cycle for a kernel LED to repeat on its own, starting `t` into the pattern (so the
    /// kernel keeps the phase the player has); `nil` when the pattern does not repeat or has a
    /// segment shorter than ``shortestKernelSegment``.
    public func kernelCycle(at t: Duration) -> [(level: Bool, duration: Duration)]? {
        let segments = cycle
        guard !segments.isEmpty, segments.allSatisfy({ $0.duration >= Self.shortestKernelSegment }) else { return nil }
        let (index, end) = Self.segment(segments, at: max(t, .zero))
        let left = end - max(t, .zero)
        let played = segments[index].duration - left
        var rotated = [(level: segments[index].level, duration: left)]
        for step in 1..<segments.count { rotated.append(segments[(index + step) % segments.count]) }
        if played >= .milliseconds(1) { rotated.append((segments[index].level, played)) }
        return rotated
    }

    /// The segment playing at `t` and the absolute time it ends.
    private static func segment(_ segments: [(level: Bool, duration: Duration)], at t: Duration) -> (index: Int, end: Duration) {
        let period = segments.reduce(Duration.zero) { $0 + $1.duration }
        let offset = remainder(t, period)
        let cycleStart = t - offset
        var end = Duration.zero
        for (index, segment) in segments.enumerated() {
            end += segment.duration
            if offset < end { return (index, cycleStart + end) }
        }
        return (segments.count - 1, cycleStart + end)
    }

    private static func remainder(_ t: Duration, _ period: Duration) -> Duration {
        guard period > .zero else { return .zero }
        return Duration(attoseconds: t.attoseconds % period.attoseconds)
    }
}
