import Foundation
import Hardware
import Testing

@Suite("Debouncer")
struct GPIODebouncerTests {
    typealias Change = Debouncer.Change

    @Test("no edges, nothing to report")
    func idle() {
        var debouncer = Debouncer(initialLevel: true)
        #expect(debouncer.deadline == nil)
        #expect(debouncer.poll(now: .seconds(100)) == nil)
        #expect(debouncer.level == true)
        #expect(debouncer.window == .milliseconds(30))
    }

    @Test("a clean edge is reported once the window has passed, stamped with the edge time")
    func cleanEdge() {
        var debouncer = Debouncer(initialLevel: false)
        #expect(debouncer.feed(true, at: .milliseconds(100)) == nil)
        #expect(debouncer.deadline == .milliseconds(130))
        #expect(debouncer.poll(now: .milliseconds(129)) == nil)
        #expect(debouncer.level == false)
        #expect(debouncer.poll(now: .milliseconds(130)) == Change(level: true, at: .milliseconds(100)))
        #expect(debouncer.level == true)
        #expect(debouncer.deadline == nil)
        #expect(debouncer.poll(now: .milliseconds(500)) == nil)
    }

    @Test("chatter within the window is one change, from the last edge")
    func chatter() {
        var debouncer = Debouncer(initialLevel: false)
        let edges: [(Bool, Int)] = [(true, 0), (false, 2), (true, 5), (false, 9), (true, 14)]
        for (level, ms) in edges {
            #expect(debouncer.feed(level, at: .milliseconds(ms)) == nil)
        }
        #expect(debouncer.poll(now: .milliseconds(43)) == nil)
        #expect(debouncer.poll(now: .milliseconds(44)) == Change(level: true, at: .milliseconds(14)))
        #expect(debouncer.poll(now: .milliseconds(100)) == nil)
    }

    @Test("a glitch shorter than the window is ignored")
    func glitch() {
        var debouncer = Debouncer(initialLevel: false)
        debouncer.feed(true, at: .milliseconds(10))
        debouncer.feed(false, at: .milliseconds(39)) // 29 ms high: one short of the window
        #expect(debouncer.poll(now: .milliseconds(69)) == nil)
        #expect(debouncer.level == false)
        #expect(debouncer.deadline == nil)
    }

    @Test("a pulse exactly as long as the window counts")
    func pulseAtWindow() {
        var debouncer = Debouncer(initialLevel: false)
        debouncer.feed(true, at: .milliseconds(10))
        #expect(debouncer.feed(false, at: .milliseconds(40)) == Change(level: true, at: .milliseconds(10)))
        #expect(debouncer.poll(now: .milliseconds(70)) == Change(level: false, at: .milliseconds(40)))
    }

    @Test("slow edges all pass")
    func slowEdges() {
        var debouncer = Debouncer(initialLevel: false)
        var changes: [Change] = []
        for (index, ms) in [0, 100, 200, 300].enumerated() {
            if let change = debouncer.poll(now: .milliseconds(ms)) { changes.append(change) }
            if let change = debouncer.feed(index % 2 == 0, at: .milliseconds(ms)) { changes.append(change) }
            if let change = debouncer.poll(now: .milliseconds(ms + 50)) { changes.append(change) }
        }
        #expect(changes == [
            Change(level: true, at: .milliseconds(0)),
            Change(level: false, at: .milliseconds(100)),
            Change(level: true, at: .milliseconds(200)),
            Change(level: false, at: .milliseconds(300)),
        ])
    }

    @Test("a stable level is not lost when the caller never polled before the next edge")
    func feedReportsSettledChange() {
        var debouncer = Debouncer(initialLevel: false)
        debouncer.feed(true, at: .milliseconds(0))
        #expect(debouncer.feed(false, at: .milliseconds(500)) == Change(level: true, at: .zero))
        #expect(debouncer.level == true)
        #expect(debouncer.poll(now: .milliseconds(530)) == Change(level: false, at: .milliseconds(500)))
    }

    @Test("an edge to the level already held restarts the window (a missed edge is chatter)")
    func repeatedLevel() {
        var debouncer = Debouncer(initialLevel: false)
        debouncer.feed(true, at: .milliseconds(0))
        debouncer.feed(true, at: .milliseconds(20))
        #expect(debouncer.poll(now: .milliseconds(30)) == nil)
        #expect(debouncer.poll(now: .milliseconds(50)) == Change(level: true, at: .milliseconds(20)))
        // Back at the stable level: the window runs out without a change.
        debouncer.feed(true, at: .milliseconds(60))
        #expect(debouncer.poll(now: .milliseconds(90)) == nil)
        #expect(debouncer.deadline == nil)
    }

    @Test("timestamps going backwards are treated as the previous edge's time")
    func backwardsTime() {
        var debouncer = Debouncer(initialLevel: false)
        debouncer.feed(true, at: .milliseconds(100))
        debouncer.feed(false, at: .milliseconds(90))
        debouncer.feed(true, at: .milliseconds(95))
        #expect(debouncer.deadline == .milliseconds(130))
        #expect(debouncer.poll(now: .milliseconds(130)) == Change(level: true, at: .milliseconds(100)))
    }

    @Test("a zero window reports every change at the next poll")
    func zeroWindow() {
        var debouncer = Debouncer(initialLevel: false, window: .zero)
        debouncer.feed(true, at: .milliseconds(5))
        #expect(debouncer.poll(now: .milliseconds(5)) == Change(level: true, at: .milliseconds(5)))
        #expect(debouncer.feed(false, at: .milliseconds(6)) == nil)
        #expect(debouncer.feed(true, at: .milliseconds(7)) == Change(level: false, at: .milliseconds(6)))
    }

    @Test("edge events feed their level and timestamp")
    func feedsEvents() {
        var debouncer = Debouncer(initialLevel: false, window: .milliseconds(10))
        debouncer.feed(GPIOEdgeEvent(offset: 4, edge: .rising, timestamp: .seconds(1)))
        #expect(debouncer.rawLevel == true)
        #expect(debouncer.poll(now: .seconds(2)) == Change(level: true, at: .seconds(1)))
    }

    /// Every sequence of up to 5 edges with gaps around the window, fed and
    /// polled at different rates, against a batch reference: a change for each
    /// interval between edges (or after the last) at least `window` long
    /// whose level differs from the last reported level.
    @Test("exhaustive: matches the reference model whatever the poll rate")
    func exhaustive() {
        let window = Duration.milliseconds(30)
        let gaps: [Int] = [1, 29, 30, 90]
        var checked = 0
        for edgeCount in 0...5 {
            for gapPattern in sequences(of: gaps, length: edgeCount) {
                for levelBits in 0..<(1 << edgeCount) {
                    for initial in [false, true] {
                        var time = 0
                        let edges: [(level: Bool, at: Int)] = (0..<edgeCount).map { index in
                            time += gapPattern[index]
                            return (levelBits & (1 << index) != 0, time)
                        }
                        let end = time + 1_000
                        let expected = reference(initial: initial, edges: edges, window: 30, end: end)
                        for pollStep in [nil, 1, 7, 30] as [Int?] {
                            let actual = run(initial: initial, edges: edges, window: window, pollStep: pollStep, end: end)
                            #expect(actual == expected, "edges \(edges) initial \(initial) poll every \(String(describing: pollStep))")
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked == 8 * (0...5).reduce(0) { $0 + Int(pow(8.0, Double($1))) })
    }

    private func run(initial: Bool, edges: [(level: Bool, at: Int)], window: Duration, pollStep: Int?, end: Int) -> [Change] {
        var debouncer = Debouncer(initialLevel: initial, window: window)
        var changes: [Change] = []
        var nextPoll = 0
        for edge in edges {
            if let step = pollStep {
                while nextPoll < edge.at {
                    if let change = debouncer.poll(now: .milliseconds(nextPoll)) { changes.append(change) }
                    nextPoll += step
                }
            }
            if let change = debouncer.feed(edge.level, at: .milliseconds(edge.at)) { changes.append(change) }
        }
        if let change = debouncer.poll(now: .milliseconds(end)) { changes.append(change) }
        return changes
    }

    private func reference(initial: Bool, edges: [(level: Bool, at: Int)], window: Int, end: Int) -> [Change] {
        var stable = initial
        var changes: [Change] = []
        for (index, edge) in edges.enumerated() {
            let until = index + 1 < edges.count ? edges[index + 1].at : end
            if until - edge.at >= window && edge.level != stable {
                stable = edge.level
                changes.append(Change(level: stable, at: .milliseconds(edge.at)))
            }
        }
        return changes
    }

    private func sequences(of values: [Int], length: Int) -> [[Int]] {
        guard length > 0 else { return [[]] }
        return sequences(of: values, length: length - 1).flatMap { prefix in values.map { prefix + [$0] } }
    }
}
