import GNSS
import Hardware

/// Finds the speed a GPS receiver talks at (`gps.baud = 0`).
///
/// Each rate is opened in turn and listened to for `window`; the first rate at which a
/// well-framed NMEA sentence with a valid checksum arrives wins (at a wrong rate the
/// UART delivers garbage that does not pass the framer). The order:
/// 1. 9600 — the default of nearly every current module (u-blox 6–M10, Quectel L70/L76/L80,
///    MTK 3339, SkyTraq, Telit SL869, ST Teseo);
/// 2. 4800 — NMEA 0183's own rate: older SiRF and Garmin units and marine receivers;
/// 3. 38400 — u-blox set up for higher update rates, some SiRF IV / Septentrio defaults;
/// 4. 115200 — receivers configured for 5–10 Hz or many constellations (u-blox F9, MTK at 10 Hz).
/// A rate that worked before (``preferred``) is tried first.
public struct BaudDetector: Sendable {
    public static let defaultRates = [9600, 4800, 38400, 115_200]

    public var rates: [Int]
    /// How long to listen at each rate (a receiver talks at least once a second).
    public var window: Duration
    /// The clock the window is measured on: the continuous clock on a box, a manual one in tests.
    public var clock: any Clock<Duration>

    /// The port at the detected rate, still open, and the bytes heard there so far.
    public struct Detected: Sendable {
        public var port: any SerialPort
        public var baud: Int
        public var bytes: [UInt8]
    }

    /// Why no rate was found.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var tried: [Int]
        /// Set when a rate could not even be opened (no device, permission).
        public var openError: String?
        public var description: String {
            if let openError { return openError }
            return "no NMEA sentence from \(path) at \(tried.map(String.init).joined(separator: ", ")) baud"
        }
    }

    public init(rates: [Int] = BaudDetector.defaultRates, window: Duration = .seconds(3), clock: any Clock<Duration> = ContinuousClock()) {
        self.rates = rates
        self.window = window
        self.clock = clock
    }

    /// The rates in the order they are tried, `preferred` first.
    public func order(preferred: Int?) -> [Int] {
        guard let preferred else { return rates }
        return [preferred] + rates.filter { $0 != preferred }
    }

    /// Tries each rate: `open(rate)` opens the port at that rate. Ports that did not
    /// answer are closed.
    public func detect(path: String, preferred: Int? = nil, open: (Int) throws -> any SerialPort) async throws -> Detected {
        var tried: [Int] = []
        for rate in order(preferred: preferred) {
            try Task.checkCancellation()
            let port: any SerialPort
            do {
                port = try open(rate)
            } catch {
                throw Failure(path: path, tried: tried + [rate], openError: "cannot open \(path) at \(rate) baud: \(error)")
            }
            tried.append(rate)
            if let bytes = try await listen(port) {
                return Detected(port: port, baud: rate, bytes: bytes)
            }
            port.close()
        }
        throw Failure(path: path, tried: tried, openError: nil)
    }

    /// Everything read within `window` (on ``clock``), once a valid sentence is among it;
    /// `nil` otherwise.
    func listen(_ port: any SerialPort) async throws -> [UInt8]? {
        var framer = NMEAFramer()
        var heard: [UInt8] = []
        let time = ElapsedTime(clock)
        while time.now < window {
            let chunk = try await port.read(upTo: 1024, timeout: window - time.now)
            if chunk.isEmpty { break }
            if heard.count < 65_536 { heard += chunk }
            if !framer.push(chunk).isEmpty { return heard }
        }
        return nil
    }
}
