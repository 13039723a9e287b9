import DriftDaemon
import Foundation
import GNSS
import Hardware
import Logging
import ServiceLifecycle
import Synchronization
import TestSupport
import Testing

/// A receiver that talks at `actualBaud`: opened at that rate it delivers NMEA, at any
/// other rate the garbage a UART makes of a mismatched rate (ptys ignore baud, so this is
/// the one boundary faked). Each read takes `readTime` on the test's manual clock (less when
/// the read's timeout is shorter), so the detector's window passes without real time.
final class MismatchedBaudPort: SerialPort {
    let path = "/dev/fake-gps"
    let backend = SerialBackend.termios
    /// Its reads never park: each returns after its time on the manual clock.
    let isWaitingForInput = false
    let settings: SerialSettings
    let actualBaud: Int
    let clock: ManualClock
    let readTime: Duration
    let closed = Mutex(false)
    let reads = Mutex(0)

    init(baud: Int, actualBaud: Int, clock: ManualClock, readTime: Duration = .milliseconds(250)) {
        settings = SerialSettings(baudRate: baud)
        self.actualBaud = actualBaud
        self.clock = clock
        self.readTime = readTime
    }

    func read(upTo maxCount: Int, timeout: Duration?) async throws -> [UInt8] {
        let count = reads.withLock { count in count += 1; return count }
        clock.advance(by: min(readTime, timeout ?? readTime))
        if settings.baudRate == actualBaud {
            return Array("$GPGGA,171926.00,4404.14063,N,12118.85478,W,1,12,0.91,1147.2,M,-21.3,M,,*5A\r\n".utf8)
        }
        // Framing errors: bytes with the high bit set, the odd '$' and '*'.
        var generator = SeededGenerator(seed: UInt64(count))
        return (0..<64).map { index in index % 17 == 0 ? UInt8(ascii: "$") : UInt8.random(in: 0...255, using: &generator) }
    }

    func write(_ bytes: [UInt8], timeout: Duration?) async throws {}
    func drain(timeout: Duration?) async throws {}
    func close() { closed.withLock { $0 = true } }
}

@Suite("GPS baud detection")
struct BaudDetectorTests {
    @Test("the rates are tried in order; garbage at a wrong rate is not a sentence; wrong ports are closed")
    func findsRate() async throws {
        for actual in BaudDetector.defaultRates {
            let clock = ManualClock()
            let opened = Mutex<[MismatchedBaudPort]>([])
            let detector = BaudDetector(window: .seconds(3), clock: clock)
            let detected = try await detector.detect(path: "/dev/fake-gps") { rate in
                let port = MismatchedBaudPort(baud: rate, actualBaud: actual, clock: clock)
                opened.withLock { $0.append(port) }
                return port
            }
            #expect(detected.baud == actual)
            let ports = opened.withLock { $0 }
            #expect(ports.map(\.settings.baudRate) == Array(BaudDetector.defaultRates.prefix { $0 != actual }) + [actual])
            #expect(ports.dropLast().allSatisfy { $0.closed.withLock { $0 } }, "ports at wrong rates are closed")
            #expect(ports.last?.closed.withLock { $0 } == false, "the detected port stays open")
            #expect(!NMEADecoder.decode(detected.bytes).sentences.isEmpty, "the bytes heard are handed on")
            // Each wrong rate is listened to for its whole window on the detector's clock (12
            // reads of 250 ms in 3 s), the right one until its first sentence.
            #expect(ports.dropLast().map { $0.reads.withLock { $0 } }.allSatisfy { $0 == 12 })
            #expect(ports.last?.reads.withLock { $0 } == 1)
            #expect(clock.now.offset == .seconds(3) * (ports.count - 1) + .milliseconds(250))
        }
    }

    @Test("a read that outlasts the window is cut to what is left of it")
    func windowCutsTheRead() async throws {
        let clock = ManualClock()
        let detector = BaudDetector(rates: [9600], window: .seconds(1), clock: clock)
        let port = MismatchedBaudPort(baud: 9600, actualBaud: 4800, clock: clock, readTime: .milliseconds(400))
        await #expect(throws: BaudDetector.Failure.self) { try await detector.detect(path: port.path) { _ in port } }
        #expect(port.reads.withLock { $0 } == 3, "400 + 400 + the 200 ms left")
        #expect(clock.now.offset == .seconds(1))
    }

    @Test("a rate found before is tried first")
    func preferredFirst() {
        #expect(BaudDetector().order(preferred: 38400) == [38400, 9600, 4800, 115_200])
        #expect(BaudDetector().order(preferred: nil) == BaudDetector.defaultRates)
    }

    @Test("no NMEA at any rate: a failure naming the rates tried")
    func nothingFound() async throws {
        let clock = ManualClock()
        let detector = BaudDetector(window: .seconds(3), clock: clock)
        do {
            _ = try await detector.detect(path: "/dev/fake-gps") { rate in MismatchedBaudPort(baud: rate, actualBaud: 1200, clock: clock) }
            Issue.record("detected a rate in garbage")
        } catch let failure as BaudDetector.Failure {
            #expect(failure.tried == BaudDetector.defaultRates)
            #expect(failure.description.contains("9600, 4800, 38400, 115200"))
        }
    }

    @Test("on a real pseudo-terminal a talking receiver is found at the first rate")
    func pseudoTerminal() async throws {
        let pty = try PseudoTerminalPair()
        let feeder = Task {
            while !Task.isCancelled {
                try pty.write(Array("$GPGGA,171926.00,4404.14063,N,12118.85478,W,1,12,0.91,1147.2,M,-21.3,M,,*5A\r\n".utf8))
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        defer { feeder.cancel() }
        let detected = try await BaudDetector(window: .seconds(3)).detect(path: pty.slavePath) { rate in
            try SerialPorts.open(path: pty.slavePath, settings: SerialSettings(baudRate: rate), logger: Logger(label: "test"))
        }
        defer { detected.port.close() }
        #expect(detected.baud == 9600)
    }

    @Test("the GPS service with baud 0 detects the rate and reads fixes through a pseudo-terminal")
    func serviceDetects() async throws {
        let pty = try PseudoTerminalPair()
        let status = GPSStatus(source: "nmea")
        let (_, ambient) = AsyncStream<AmbientInput>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let service = GPSService(source: .serial(path: pty.slavePath, baud: 0), ambient: ambient, status: status,
                                 health: HealthRegistry(), logger: Logger(label: "test"), silenceLimit: .seconds(2),
                                 baudDetector: BaudDetector(window: .seconds(2)))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        let position = SimulatedGPS.Position(latitude: 44.0690105, longitude: -121.3142463, altitude: 1147, hasFix: true)
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let feeder = Task {
                var second = 0.0
                while !Task.isCancelled {
                    try pty.write(Array(SimulatedGPS.sentences(for: position, at: Date(timeIntervalSince1970: 1_800_000_000 + second)).utf8))
                    second += 1
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            let deadline = ContinuousClock.now + .seconds(40)
            while status.snapshot.reception != .fix, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(status.snapshot.reception == .fix, "\(status.snapshot)")
            feeder.cancel()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
