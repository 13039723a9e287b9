/// The input of a ``SerialPort`` as byte chunks; see ``SerialPort/chunks(maximumCount:)``.
///
/// Ends (returns `nil`) when the port is closed or the task is cancelled;
/// throws ``SerialError/disconnected(path:)`` and other ``SerialError``s.
public struct SerialByteChunks: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    let port: any SerialPort
    let maximumCount: Int

    init(port: any SerialPort, maximumCount: Int) {
        precondition(maximumCount > 0, "chunk size must be positive")
        self.port = port
        self.maximumCount = maximumCount
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(port: port, maximumCount: maximumCount)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let port: any SerialPort
        let maximumCount: Int
        var finished = false

        public mutating func next() async throws -> [UInt8]? {
            guard !finished else { return nil }
            do {
                return try await port.read(upTo: maximumCount, timeout: nil)
            } catch is CancellationError {
                finished = true
                return nil
            } catch SerialError.closed {
                finished = true
                return nil
            } catch {
                finished = true
                throw error
            }
        }
    }
}
