import Hardware
import Sensors
import Testing

@Suite("Rain gauge")
struct RainGaugeTests {
    static func ms(_ value: Int) -> Duration { .milliseconds(value) }

    @Test func cleanTipsCountExactly() {
        var gauge = RainGauge()
        for second in 0..<10 {
            let counted = gauge.recordActiveEdge(at: .seconds(second * 3))
            #expect(counted)
        }
        #expect(gauge.totalTips == 10)
        #expect(gauge.ignoredEdges == 0)
        #expect(abs(gauge.totalMillimetres - 2.794) < 1e-9)
    }

    @Test func bounceBurstIsOneTip() {
        var gauge = RainGauge()
        // A closure that chatters 6 times over 40 ms, then a real tip 2 s later that chatters too.
        for t in [1000, 1003, 1007, 1012, 1020, 1040] { gauge.recordActiveEdge(at: Self.ms(t)) }
        for t in [3000, 3001, 3002] { gauge.recordActiveEdge(at: Self.ms(t)) }
        #expect(gauge.totalTips == 2)
        #expect(gauge.ignoredEdges == 7)
    }

    @Test func chatterLongerThanWindowStaysOneTipWhileEdgesKeepComing() {
        var gauge = RainGauge()
        // Edges every 30 ms for 300 ms: each is within 50 ms of the previous one.
        for t in stride(from: 0, through: 300, by: 30) { gauge.recordActiveEdge(at: Self.ms(t)) }
        #expect(gauge.totalTips == 1)
        // 50 ms of quiet after the last edge: the next edge is a new tip (boundary inclusive).
        let counted1 = gauge.recordActiveEdge(at: Self.ms(350))
        #expect(counted1)
        let counted2 = gauge.recordActiveEdge(at: Self.ms(399))
        #expect(!counted2)
        #expect(gauge.totalTips == 2)
    }

    @Test func edgeEventsCountOnlyActiveEdges() {
        var gauge = RainGauge()
        let events: [GPIOEdgeEvent] = [
            .init(offset: 6, edge: .rising, timestamp: Self.ms(100)),
            .init(offset: 6, edge: .falling, timestamp: Self.ms(102)),
            .init(offset: 6, edge: .rising, timestamp: Self.ms(104)),  // bounce
            .init(offset: 6, edge: .falling, timestamp: Self.ms(180)),
            .init(offset: 6, edge: .rising, timestamp: Self.ms(900)),
            .init(offset: 6, edge: .falling, timestamp: Self.ms(990)),
        ]
        for event in events { gauge.record(event) }
        #expect(gauge.totalTips == 2)
        #expect(gauge.ignoredEdges == 1)
    }

    @Test func rainInLastMinutes() {
        var gauge = RainGauge(millimetresPerTip: 0.5)
        let minute = Duration.seconds(60)
        // Tips at minutes 1, 2, 3, 10, 11.
        for m in [1, 2, 3, 10, 11] { gauge.recordActiveEdge(at: minute * m) }
        let now = minute * 12
        #expect(gauge.tips(inLast: minute * 5, now: now) == 2)  // (7, 12]: 10, 11
        #expect(gauge.rainfall(inLast: minute * 5, now: now) == 1.0)
        #expect(gauge.tips(inLast: minute * 10, now: now) == 3)  // (2, 12]: 3, 10, 11 (2 is excluded)
        #expect(gauge.tips(inLast: minute * 60, now: now) == 5)
        #expect(gauge.tips(inLast: minute * 1, now: minute * 11) == 1)  // (10, 11]: 11
    }

    @Test func historyIsPrunedButTotalKept() {
        var gauge = RainGauge(history: .seconds(3600))
        gauge.recordActiveEdge(at: .seconds(10))
        gauge.recordActiveEdge(at: .seconds(20))
        gauge.recordActiveEdge(at: .seconds(4000))
        #expect(gauge.tipTimes == [.seconds(4000)])
        #expect(gauge.totalTips == 3)
        #expect(gauge.tips(inLast: .seconds(100_000), now: .seconds(4000)) == 1)
        gauge.prune(now: .seconds(8000))
        #expect(gauge.tipTimes.isEmpty)
    }

    @Test func backwardsTimestampIsBounce() {
        var gauge = RainGauge()
        gauge.recordActiveEdge(at: .seconds(5))
        let counted3 = gauge.recordActiveEdge(at: .seconds(4))
        #expect(!counted3)
        #expect(gauge.totalTips == 1)
    }

    @Test func configurableBounceWindow() {
        var gauge = RainGauge(bounceWindow: .milliseconds(200))
        gauge.recordActiveEdge(at: Self.ms(0))
        let counted4 = gauge.recordActiveEdge(at: Self.ms(150))
        #expect(!counted4)
        let counted5 = gauge.recordActiveEdge(at: Self.ms(350))
        #expect(counted5)
        #expect(gauge.totalTips == 2)
    }
}
