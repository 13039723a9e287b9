import Foundation
import Hardware
import Testing
import TestSupport

/// Writes larger than the kernel's buffer: waiting for room, timeouts, and
/// concurrent writers not interleaving.
@Suite("Serial port writes")
struct SerialWriteTests {
    @Test("a write larger than the pty buffer waits for room and arrives intact")
    func largeWrite() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath, settings: SerialSettings(baudRate: 921_600))
        defer { port.close() }
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        let writer = Task { try await port.write(payload, timeout: .seconds(120)) }
        let received = try await pair.read(count: payload.count, timeout: .seconds(120))
        try await writer.value
        #expect(received.count == payload.count)
        #expect(received == payload)
    }

    @Test("concurrent writes are not interleaved")
    func concurrentWritersDoNotInterleave() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath, settings: SerialSettings(baudRate: 921_600))
        defer { port.close() }
        let blockSize = 150_000
        let writers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for letter in Array("ABC".utf8) {
                    group.addTask { try await port.write([UInt8](repeating: letter, count: blockSize), timeout: .seconds(120)) }
                }
                try await group.waitForAll()
            }
        }
        let received = try await pair.read(count: 3 * blockSize, timeout: .seconds(120))
        try await writers.value
        #expect(received.count == 3 * blockSize)
        // Each block arrives as one contiguous run: exactly two letter changes.
        let changes = zip(received, received.dropFirst()).filter { $0 != $1 }.count
        #expect(changes == 2)
        #expect(Set(received) == Set(Array("ABC".utf8)))
    }

    @Test("a write the far end never takes times out with .timeout")
    func writeTimeout() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath)
        defer { port.close() }
        // Nobody reads the master: the pty buffer fills and the write must give up.
        let payload = [UInt8](repeating: 0x55, count: 2_000_000)
        let error = await serialError { try await port.write(payload, timeout: .milliseconds(300)) }
        #expect(error as? SerialError == .timeout(path: pair.slavePath, operation: "write"))
        // The port still works once the far end reads again.
        _ = try await pair.readAll(for: .milliseconds(200))
        try await port.write([0x01], timeout: .seconds(5))
    }

    @Test("drain returns once output is transmitted; an empty write is fine")
    func drain() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath)
        defer { port.close() }
        try await port.write([])
        try await port.write("PING\r\n")
        try await port.drain(timeout: .seconds(5))
        #expect(try await pair.read(count: 6) == Array("PING\r\n".utf8))
    }
}
