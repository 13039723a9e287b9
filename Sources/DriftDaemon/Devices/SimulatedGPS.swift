import Foundation
import GNSS
import Synchronization

/// The sim board's GPS receiver: emits the NMEA a real receiver would (GGA and
/// RMC once a second, or once per `$PMTK220` interval) for a position that `sim.gps` can
/// move, or no fix at all; or replays an NMEA capture (`sim.nmea_replay`) in real time: cycle by cycle,
/// paced by the capture's own time stamps (one cycle a second where it has none), over
/// and over (``GNSS/NMEAReplay``).
///
/// Its sentences go through the same framer, parser and epoch assembly as a
/// real receiver's.
public final class SimulatedGPS: Sendable {
    public struct Position: Sendable, Equatable, Codable {
        public var latitude: Double
        public var longitude: Double
        public var altitude: Double
        /// `false`: the receiver answers but has no fix.
        public var hasFix: Bool

        public init(latitude: Double, longitude: Double, altitude: Double, hasFix: Bool) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
            self.hasFix = hasFix
        }
    }

    private let position: Mutex<Position>
    /// Put to sleep by `$PMTK161` (it answers like a MediaTek receiver); any byte wakes it.
    private let asleep = Mutex(false)
    private let wakeUp = Doorbell()
    /// One cycle per this; `$PMTK220,<ms>` sets it (100 ms … 10 s), as on a MediaTek receiver.
    private let fixInterval = Mutex(Duration.seconds(1))
    let replayPath: String?
    let sleep: @Sendable (Duration) async throws -> Void
    /// Where the output task runs (the daemon's ``TimerWheel``; `nil`: the pool).
    let executor: (any TaskExecutor)?

    /// - Parameters:
    ///   - sleep: waits between cycles (tests inject a recorder or a manual clock).
    ///   - wheel: the timer wheel `sleep` sleeps on, whose thread then runs the output task too.
    public init(latitude: Double, longitude: Double, altitude: Double, replayPath: String? = nil,
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                wheel: TimerWheel? = nil) {
        executor = wheel
        position = Mutex(Position(latitude: latitude, longitude: longitude, altitude: altitude, hasFix: true))
        self.replayPath = replayPath?.isEmpty == true ? nil : replayPath
        self.sleep = sleep
    }

    public var current: Position { position.withLock { $0 } }

    public func move(_ update: (inout Position) -> Void) {
        position.withLock { update(&$0) }
    }

    /// Whether `$PMTK161` put it to sleep (no sentences until a byte wakes it).
    public var isAsleep: Bool { asleep.withLock { $0 } }

    /// How often it emits a cycle (`$PMTK220`; the replay keeps the capture's pace).
    public var interval: Duration { fixInterval.withLock { $0 } }

    /// Bytes the box sends the receiver: `$PMTK161,…` (standby) stops its output; any other
    /// byte while it sleeps wakes it; `$PMTK220,<ms>` sets the fix interval from the next
    /// cycle on — as on a MediaTek receiver (docs/gnss.md, "Power save").
    public func receive(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let milliseconds = Self.fixIntervalMilliseconds(in: text) {
            fixInterval.withLock { $0 = .milliseconds(milliseconds) }
        }
        let standby = text.contains("$PMTK161,")
        let woke = asleep.withLock { asleep -> Bool in
            if standby {
                asleep = true
                return false
            }
            defer { asleep = false }
            return asleep
        }
        if woke { wakeUp.ring() }
    }

    /// Returns at once when awake; otherwise when ``receive(_:)`` wakes it (or on cancellation).
    private func waitWhileAsleep() async {
        while isAsleep, !Task.isCancelled {
            await wakeUp.wait(orUntil: { try await Task.sleep(for: .seconds(3_600)) })
        }
    }

    /// The receiver's output: one chunk per second, or per replayed cycle at the capture's pace.
    public func bytes() -> AsyncStream<[UInt8]> {
        AsyncStream { continuation in
            let task = Task(executorPreference: executor) { [self] in
                if let replayPath, let data = FileManager.default.contents(atPath: replayPath) {
                    let cycles = NMEAReplay.cycles(of: Array(data))
                    await replay(cycles, into: continuation)
                } else {
                    while !Task.isCancelled {
                        await waitWhileAsleep()
                        continuation.yield(Array(Self.sentences(for: current, at: Date()).utf8))
                        do { try await sleep(interval) } catch { break }
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The interval of a `$PMTK220,<ms>*hh` in `text` with a valid checksum and an interval
    /// MediaTek takes (100…10000 ms), else `nil`.
    static func fixIntervalMilliseconds(in text: String) -> Int? {
        guard let start = text.range(of: "$PMTK220,") else { return nil }
        let line = text[start.lowerBound...].prefix { $0 != "\r" && $0 != "\n" }
        guard let sentence = NMEASentence.parse(String(line)), let milliseconds = Int(sentence[1]),
              (100...10_000).contains(milliseconds) else { return nil }
        return milliseconds
    }

    /// Yields `cycles` over and over, each after the pause its time stamp asks for.
    func replay(_ cycles: [NMEAReplay.Cycle], into continuation: AsyncStream<[UInt8]>.Continuation) async {
        guard !cycles.isEmpty else { return }
        var previous: NMEATimeOfDay?
        var first = true
        while !Task.isCancelled {
            for cycle in cycles {
                if !first {
                    do { try await sleep(NMEAReplay.delay(from: previous, to: cycle.timeOfDay)) } catch { return }
                }
                first = false
                continuation.yield(cycle.bytes)
                previous = cycle.timeOfDay
                if Task.isCancelled { return }
            }
            previous = nil   // the capture starts again: one default pause
        }
    }

    /// GGA and RMC for `position` at `date`, with valid checksums.
    public static func sentences(for position: Position, at date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let time = String(format: "%02d%02d%02d.00", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
        let day = String(format: "%02d%02d%02d", parts.day ?? 1, parts.month ?? 1, (parts.year ?? 2000) % 100)
        guard position.hasFix else {
            return wrap("GPGGA,\(time),,,,,0,00,99.99,,,,,,") + wrap("GPRMC,\(time),V,,,,,,,\(day),,,N")
        }
        let (lat, ns) = angle(position.latitude, degreesWidth: 2, positive: "N", negative: "S")
        let (lon, ew) = angle(position.longitude, degreesWidth: 3, positive: "E", negative: "W")
        let altitude = String(format: "%.1f", position.altitude)
        return wrap("GPGGA,\(time),\(lat),\(ns),\(lon),\(ew),1,08,0.9,\(altitude),M,46.9,M,,")
            + wrap("GPRMC,\(time),A,\(lat),\(ns),\(lon),\(ew),0.0,0.0,\(day),,,A")
    }

    static func angle(_ value: Double, degreesWidth: Int, positive: String, negative: String) -> (String, String) {
        let magnitude = abs(value)
        let degrees = Int(magnitude)
        let minutes = (magnitude - Double(degrees)) * 60
        let text = String(format: "%0\(degreesWidth)d%07.4f", degrees, minutes)
        return (text, value < 0 ? negative : positive)
    }

    static func wrap(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        return "$\(body)*\(String(format: "%02X", checksum))\r\n"
    }
}
