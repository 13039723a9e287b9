import Foundation

/// The process's threads as the kernel lists them (`/proc/self/task`): what tests of thread
/// lifecycles look at.
enum OSThreads {
    /// The calling thread's kernel id (`/proc/thread-self` points at `<pid>/task/<tid>`).
    static func currentID() throws -> Int {
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")
        guard let last = link.split(separator: "/").last, let id = Int(last) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: "/proc/thread-self -> \(link)"])
        }
        return id
    }

    /// The name of thread `id` of this process, `nil` once it has gone.
    static func name(of id: Int) -> String? {
        (try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    /// Waits until thread `id` has left the process; `false` when it is still there after
    /// `limit`. A thread that returned from its function is removed by the kernel right after
    /// (its exit is not atomic with the return): this waits for that event, yielding between
    /// looks; it does not wait for time to pass.
    static func waitUntilGone(_ id: Int, limit: Duration = .seconds(30)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while name(of: id) != nil {
            guard ContinuousClock.now < deadline else { return false }
            await Task.yield()
        }
        return true
    }
}
