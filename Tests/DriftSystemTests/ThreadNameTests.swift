import DriftSystem
import Foundation
import Testing

@Suite("Thread names")
struct ThreadNameTests {
    /// The kernel's name of the calling thread.
    private static func comm() -> String? {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    @Test("a new thread names itself in the kernel at once, cut to the kernel's 15 bytes")
    func namesTheKernelThread() async throws {
        let names: [String?] = await withCheckedContinuation { continuation in
            // Started from a pool thread, as the daemon's lanes are: the new thread begins with
            // its creator's name, and Foundation's setter alone may never replace it.
            let thread = Thread {
                let before = Self.comm()
                ThreadName.setCurrent("drift-test-name")
                let short = Self.comm()
                ThreadName.setCurrent("a-name-longer-than-fifteen-bytes")
                continuation.resume(returning: [before, short, Self.comm()])
            }
            thread.start()
        }
        #expect(names[1] == "drift-test-name")
        #expect(names[2] == "a-name-longer-t")
    }
}
