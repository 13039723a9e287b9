import DriftSystem
import Hardware
import Synchronization

/// The rain gauge's reed switch on the simulated chip (`sim.rain`): tips the bucket by
/// driving the line, with contact bounce, spaced so that every tip counts.
public final class SimulatedRainGauge: Sendable {
    /// Time between simulated tips (a real bucket needs ≥ 0.5 s; the gauge's bounce filter 50 ms).
    public static let spacing = Duration.milliseconds(100)

    let driver: SimulatedGPIODriver
    let line: String
    /// The latest simulated closing, so tips from consecutive commands are spaced too.
    private let lastClosing = Mutex<Duration?>(nil)

    public init(driver: SimulatedGPIODriver, line: String) {
        self.driver = driver
        self.line = line
    }

    /// Drives `tips` closures of the switch, stamped ``spacing`` apart from now (or from the
    /// previous simulated tip), each with a bounce 2 ms after it closes.
    public func tip(_ tips: Int) throws(GPIOError) {
        guard tips > 0 else { return }
        let start = lastClosing.withLock { last in
            let start = max(MonotonicTime.now(), (last ?? .zero) + Self.spacing)
            last = start + Self.spacing * (tips - 1)
            return start
        }
        for tip in 0..<tips {
            let closed = start + Self.spacing * tip
            try driver.drive(line: line, to: false, at: closed)
            try driver.drive(line: line, to: nil, at: closed + .milliseconds(1))
            try driver.drive(line: line, to: false, at: closed + .milliseconds(2))
            try driver.drive(line: line, to: nil, at: closed + .milliseconds(20))
        }
    }
}
