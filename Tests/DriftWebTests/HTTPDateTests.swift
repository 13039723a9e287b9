@testable import DriftDaemon
import Foundation
import HTTPTypes
import Synchronization
import Testing

@Suite("The Date header: formatted when a response needs it, no timer")
struct HTTPDateTests {
    @Test("IMF-fixdate, in GMT", arguments: [
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),   // RFC 9110 §5.6.7's example
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_798_761_599, "Thu, 31 Dec 2026 23:59:59 GMT"),
    ])
    func format(second: Int, expected: String) {
        #expect(HTTPDate.format(second) == expected)
    }

    @Test("the value follows the clock's second")
    func followsTheClock() {
        let clock = Mutex(784_111_777)
        let date = HTTPDate(seconds: { clock.withLock { $0 } })
        #expect(date.now() == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(date.now() == "Sun, 06 Nov 1994 08:49:37 GMT")
        clock.withLock { $0 += 1 }
        #expect(date.now() == "Sun, 06 Nov 1994 08:49:38 GMT")
        clock.withLock { $0 += 86_400 }
        #expect(date.now() == "Mon, 07 Nov 1994 08:49:38 GMT")
    }

    @Test("a live response carries Date (parsed back within the request's seconds) and Server")
    func liveResponse() async throws {
        try await APIHarness.run { harness in
            let before = Int(Date().timeIntervalSince1970)
            let reply = try await harness.client.send(.post, "/api/v1/visitors")
            let after = Int(Date().timeIntervalSince1970)
            #expect(reply.code == 201)
            #expect(reply.headers[.server] == "driftd")
            let header = try #require(reply.headers[.date])
            #expect((before...after).map(HTTPDate.format).contains(header), "Date: \(header), not within \(before)…\(after)")
        }
    }
}
