import DriftSystem
import Foundation
import Hardware
import Testing
import TestSupport

/// Far ends that go away, ports that are closed, ports reopened: over real pseudo-terminals.
@Suite("Serial port disconnects, close and reopen")
struct SerialDisconnectTests {
    @Test("the far end closing during a read is reported as .disconnected, promptly")
    func farEndClosesDuringRead() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath)
        defer { port.close() }

        let reader = Task { try await port.read(upTo: 64, timeout: nil) }
        // The hang-up comes while the read is parked on the readiness monitor.
        #expect(try await eventually { port.isWaitingForInput })
        pair.closeMaster()
        #expect(try await outcome(of: reader) == .failed(.disconnected(path: pair.slavePath)))
    }

    @Test("after a disconnect every read and write fails at once (no spinning, no waiting)")
    func disconnectIsSticky() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath)
        defer { port.close() }
        try pair.write(Array("last words".utf8))
        #expect(try await readExactly(port, count: 10) == Array("last words".utf8))
        pair.closeMaster()

        // Timeouts far beyond the time limit: only a prompt error passes.
        for _ in 0..<3 {
            let reader = Task { try await port.read(upTo: 64, timeout: .seconds(60)) }
            #expect(try await outcome(of: reader) == .failed(.disconnected(path: pair.slavePath)))
        }
        let writeError = await serialError { try await port.write(Array("anyone?".utf8)) }
        #expect(writeError as? SerialError == .disconnected(path: pair.slavePath))
        let drainError = await serialError { try await port.drain() }
        #expect(drainError as? SerialError == .disconnected(path: pair.slavePath))
    }

    @Test("a write to a far end that closed fails with .disconnected")
    func writeAfterFarEndClosed() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath)
        defer { port.close() }
        pair.closeMaster()
        let error = await serialError { try await port.write([1, 2, 3]) }
        #expect(error as? SerialError == .disconnected(path: pair.slavePath))
    }

    @Test("chunks() delivers input, then throws .disconnected when the far end closes")
    func chunksUntilDisconnect() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath)
        defer { port.close() }
        let receivedCount = LockedCounter()
        let consumer = Task { () async throws -> [UInt8] in
            var received: [UInt8] = []
            do {
                for try await chunk in port.chunks(maximumCount: 16) {
                    #expect(!chunk.isEmpty && chunk.count <= 16)
                    received += chunk
                    receivedCount.set(received.count)
                }
                Issue.record("the sequence ended instead of reporting the disconnect")
            } catch SerialError.disconnected {
                return received
            }
            return received
        }
        let message = Array("$GPRMC,a fairly long sentence to split into chunks*00\r\n".utf8)
        try pair.write(message)
        // Unplug only once everything arrived, so the test is about the disconnect.
        try await waitUntil { receivedCount.value >= message.count }
        pair.closeMaster()
        #expect(try await outcome(of: consumer) == .bytes(message))
    }

    @Test("close() is idempotent, wakes a pending read with .closed and ends chunks()")
    func closeWakesReaders() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath)

        let reader = Task { try await port.read(upTo: 64, timeout: nil) }
        #expect(try await eventually { port.isWaitingForInput })
        port.close()
        port.close()
        #expect(try await outcome(of: reader) == .failed(.closed(path: pair.slavePath)))

        let error = await serialError { _ = try await port.read(upTo: 1, timeout: .zero) }
        #expect(error as? SerialError == .closed(path: pair.slavePath))
        let writeError = await serialError { try await port.write([1]) }
        #expect(writeError as? SerialError == .closed(path: pair.slavePath))

        var iterations = 0
        for try await _ in port.chunks() { iterations += 1 }
        #expect(iterations == 0)
    }

    @Test("cancelling a pending read throws CancellationError and leaves the port usable")
    func cancelRead() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath)
        defer { port.close() }
        let reader = Task { try await port.read(upTo: 64, timeout: nil) }
        #expect(try await eventually { port.isWaitingForInput })
        reader.cancel()
        let result = try await outcome(of: reader)
        #expect(result == .otherError("\(CancellationError())"))

        try pair.write([7, 8, 9])
        #expect(try await readExactly(port, count: 3) == [7, 8, 9])
    }

    @Test("reopening through the same link after the device came back as a new far end")
    func reopenAfterFarEndReturns() async throws {
        let directory = try SerialTemporaryDirectory()
        let link = directory.path + "/gps0"

        let first = try PseudoTerminalPair()
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: first.slavePath)
        let port = try SerialPorts.open(path: link, settings: SerialSettings(baudRate: 38400))
        #expect(port.path == first.slavePath)
        try first.write(Array("one".utf8))
        #expect(try await readExactly(port, count: 3) == Array("one".utf8))

        first.closeMaster()
        let reader = Task { try await port.read(upTo: 8, timeout: nil) }
        #expect(try await outcome(of: reader) == .failed(.disconnected(path: first.slavePath)))
        port.close()

        // The device is back (as udev would recreate /dev/serial/by-id/...).
        let second = try PseudoTerminalPair()
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: second.slavePath)
        let reopened = try SerialPorts.open(path: link, settings: SerialSettings(baudRate: 38400))
        defer { reopened.close() }
        #expect(reopened.path == second.slavePath)
        try second.write(Array("two".utf8))
        #expect(try await readExactly(reopened, count: 3) == Array("two".utf8))
        try await reopened.write(Array("ack".utf8))
        #expect(try await second.read(count: 3) == Array("ack".utf8))
    }

    @Test("the same device can be reopened after close while the far end stays")
    func reopenSameDevice() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath)
        port.close()
        let again = try SerialPorts.open(path: pair.slavePath)
        defer { again.close() }
        try pair.write([1])
        #expect(try await readExactly(again, count: 1) == [1])
    }

    @Test("a second opener of an open port gets .busy")
    func busy() async throws {
        let pair = try PseudoTerminalPair()
        let port = try SerialPorts.open(path: pair.slavePath)
        defer { port.close() }
        #expect(throws: SerialError.busy(path: pair.slavePath)) {
            _ = try SerialPorts.open(path: pair.slavePath)
        }
    }
}

/// Checks `condition` every 10 ms for up to 5 s (test synchronisation only).
func waitUntil(_ condition: () -> Bool) async throws {
    for _ in 0..<500 where !condition() {
        try await Task.sleep(for: .milliseconds(10))
    }
}
