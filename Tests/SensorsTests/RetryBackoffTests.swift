import Sensors
import Testing

@Suite("Retry back-off")
struct RetryBackoffTests {
    @Test func delaysDoubleUpToTheMaximum() {
        var backoff = RetryBackoff()
        var now = Duration.zero
        var delays: [Duration] = []
        for _ in 0..<9 {
            let next = backoff.recordFailure(at: now)
            delays.append(next - now)
            #expect(!backoff.mayAttempt(now: next - .milliseconds(1)))
            #expect(backoff.mayAttempt(now: next))
            now = next
        }
        #expect(delays == [5, 10, 20, 40, 80, 160, 300, 300, 300].map { Duration.seconds($0) })
        #expect(backoff.failures == 9)
    }

    @Test func successResets() {
        var backoff = RetryBackoff(initialDelay: .seconds(1), maximumDelay: .seconds(8))
        backoff.recordFailure(at: .seconds(0))
        backoff.recordFailure(at: .seconds(1))
        #expect(backoff.currentDelay == .seconds(2))
        backoff.recordSuccess()
        #expect(backoff.failures == 0)
        #expect(backoff.nextAttempt == nil)
        #expect(backoff.mayAttempt(now: .seconds(1)))
        #expect(backoff.recordFailure(at: .seconds(10)) == .seconds(11))
    }

    @Test func manyFailuresDoNotOverflow() {
        var backoff = RetryBackoff()
        for i in 0..<1000 { backoff.recordFailure(at: .seconds(i)) }
        #expect(backoff.currentDelay == .seconds(300))
    }
}
