import DriftCore
import DriftDaemon
import DriftSystem
import Foundation
import GNSS
import Logging
import ServiceLifecycle
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP listener that speaks gpsd's side of the protocol.
final class FakeGPSD: Sendable {
    let listener: FileDescriptor
    let port: Int

    init() throws {
        (listener, port) = try TCPSocket.listenLoopback()
    }

    deinit { try? listener.close() }

    /// Waits for one client (polling the non-blocking listener).
    func accept(timeout: Duration = .seconds(40)) async throws -> FileDescriptor {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let client = try UnixSocket.accept(listener) { return client }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw SystemError(operation: "accept", errno: ETIMEDOUT)
    }

    /// Reads from `client` until `marker` has arrived.
    static func read(_ client: FileDescriptor, until marker: String, timeout: Duration = .seconds(10)) async throws -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let count = try buffer.withUnsafeMutableBytes { raw throws(SystemError) in try client.read(into: raw) }
            if let count, count > 0 { received += buffer[0..<count] }
            let text = String(decoding: received, as: UTF8.self)
            if text.contains(marker) { return text }
            if count == 0 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// gpsd's greeting, then the answer to `?WATCH`.
    static func handshake(_ client: FileDescriptor) async throws -> String {
        try UnixSocket.sendAll(client, Array((#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\r\n").utf8))
        let command = try await read(client, until: ";")
        try UnixSocket.sendAll(client, Array((
            #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","driver":"NMEA0183","activated":"2015-03-18T17:19:25.000Z","native":0,"bps":9600,"parity":"N","stopbits":1,"cycle":1.00}]}"# + "\r\n"
                + #"{"class":"WATCH","enable":true,"json":true,"nmea":false,"raw":0,"scaled":false,"timing":false,"split24":false,"pps":false}"# + "\r\n"
        ).utf8))
        return command
    }
}

@Suite("GPS service: gpsd JSON socket")
struct GPSDClientTests {
    static let chk = DriftdProcess.packageRoot + "/../shared/data/nmea/neo-m8n.log.chk"

    /// TPV and SKY lines: from gpsd's own regression output when ../shared is there, else inline.
    static func reports() -> [String] {
        if let text = try? String(contentsOfFile: chk, encoding: .utf8) {
            return text.split(whereSeparator: \.isNewline).map(String.init)
                .filter { $0.hasPrefix(#"{"class":"TPV""#) || $0.hasPrefix(#"{"class":"SKY""#) }
        }
        print("GPSDClientTests: \(chk) absent; using inline TPV lines")
        return (0..<10).flatMap { second in [
            #"{"class":"SKY","hdop":0.91,"pdop":1.56,"vdop":1.27,"uSat":12}"#,
            #"{"class":"TPV","mode":3,"time":"2015-03-18T17:19:\#(26 + second).000Z","lat":44.069010500,"lon":-121.314246333,"altHAE":1125.9000,"altMSL":1147.2000,"alt":1147.2000,"speed":0.060,"geoidSep":-21.300}"#,
        ] }
    }

    func waitFor(_ timeout: Duration, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    @Test("TPV parsing: gpsd's fields back into a fix")
    func parseTPV() throws {
        let line = #"{"class":"TPV","status":2,"mode":3,"time":"2015-03-18T17:19:26.500Z","lat":44.069010500,"lon":-121.314246333,"altHAE":1125.9000,"altMSL":1147.2000,"alt":1147.2000,"track":12.5,"speed":0.060,"geoidSep":-21.300}"#
        guard case .tpv(let fix) = try GPSDReport.parse(line) else { Issue.record("not a TPV"); return }
        #expect(fix.mode == .threeD)
        #expect(fix.status == .dgps)
        #expect(fix.time?.iso8601 == "2015-03-18T17:19:26.500Z")
        #expect(fix.latitude == 44.0690105 && fix.longitude == -121.314246333)
        #expect(fix.altitudeMSL == 1147.2 && fix.geoidSeparation == -21.3 && fix.speed == 0.06 && fix.track == 12.5)
        #expect(GPSDJSON.tpv(fix) == line.replacingOccurrences(of: #","track":12.5,"speed":0.060"#, with: #","track":12.5000,"speed":0.060"#),
                "round trip through our TPV writer")
        guard case .sky(let sky) = try GPSDReport.parse(#"{"class":"SKY","hdop":0.91,"uSat":12}"#) else { Issue.record("not a SKY"); return }
        #expect(sky.hdop == 0.91 && sky.usedCount == 12)
        #expect(throws: GPSDReport.ParseError.self) { try GPSDReport.parse("{\"class\":") }
        #expect(throws: GPSDReport.ParseError.self) { try GPSDReport.parse("[1,2]") }
        #expect(GPSDReport.time(iso8601: "2015-03-18T25:00:00Z") == nil)
    }

    @Test("fixes from a gpsd on loopback; its going away is a fault; it is reconnected")
    func fixesAndReconnect() async throws {
        let gpsd = try FakeGPSD()
        let status = GPSStatus(source: "gpsd")
        let health = HealthRegistry()
        let (_, ambient) = AsyncStream<AmbientInput>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let service = GPSService(source: .gpsd(host: "127.0.0.1", port: gpsd.port), ambient: ambient, status: status,
                                 health: health, logger: Logger(label: "test"), silenceLimit: .seconds(2))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        let reports = Self.reports()
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let client = try await gpsd.accept()
            let command = try await FakeGPSD.handshake(client)
            #expect(command.contains(#"?WATCH={"enable":true,"json":true};"#))
            for line in reports { try UnixSocket.sendAll(client, Array((line + "\r\n").utf8)) }
            #expect(try await waitFor(.seconds(40)) { status.snapshot.reception == .fix }, "\(status.snapshot)")
            #expect(abs((status.snapshot.latitude ?? 0) - 44.069) < 0.001)
            #expect(abs((status.snapshot.longitude ?? 0) + 121.314) < 0.001)
            #expect(health.evaluate().faults[GPSService.component] == nil)

            try client.close()
            #expect(try await waitFor(.seconds(40)) { status.snapshot.reception == .absent })
            #expect(health.evaluate().faults[GPSService.component]?.contains("closed") == true, "\(health.evaluate().faults)")

            // Back-off (2 s), then the service connects again.
            let again = try await gpsd.accept(timeout: .seconds(15))
            _ = try await FakeGPSD.handshake(again)
            for line in reports.suffix(6) { try UnixSocket.sendAll(again, Array((line + "\r\n").utf8)) }
            #expect(try await waitFor(.seconds(40)) { status.snapshot.reception == .fix })
            #expect(health.evaluate().faults[GPSService.component] == nil)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            try? again.close()
        }
    }

    @Test("a gpsd that greets but reports no receiver is a fault")
    func silentGPSD() async throws {
        let gpsd = try FakeGPSD()
        let status = GPSStatus(source: "gpsd")
        let health = HealthRegistry()
        let (_, ambient) = AsyncStream<AmbientInput>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let service = GPSService(source: .gpsd(host: "127.0.0.1", port: gpsd.port), ambient: ambient, status: status,
                                 health: health, logger: Logger(label: "test"), silenceLimit: .milliseconds(500))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let client = try await gpsd.accept()
            _ = try await FakeGPSD.handshake(client)
            #expect(try await waitFor(.seconds(40)) { health.evaluate().faults[GPSService.component]?.contains("no receiver") == true },
                    "\(health.evaluate().faults)")
            #expect(status.snapshot.reception == .absent)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
            try? client.close()
        }
    }

    @Test("no gpsd listening is a fault saying so")
    func absentGPSD() async throws {
        let port: Int
        do {
            let gpsd = try FakeGPSD()
            port = gpsd.port
        }   // closed again: nothing listens there now
        let health = HealthRegistry()
        let (_, ambient) = AsyncStream<AmbientInput>.makeStream(bufferingPolicy: .bufferingNewest(16))
        let service = GPSService(source: .gpsd(host: "127.0.0.1", port: port), ambient: ambient, status: GPSStatus(source: "gpsd"),
                                 health: health, logger: Logger(label: "test"))
        let group = ServiceGroup(services: [service], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            #expect(try await waitFor(.seconds(40)) { health.evaluate().faults[GPSService.component]?.contains("cannot connect to gpsd") == true },
                    "\(health.evaluate().faults)")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
