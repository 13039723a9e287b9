import Foundation

extension ManualClock {
    /// A wall clock (`now: @Sendable () -> Date`) that reads `start` plus this clock's ``now``:
    /// it stands still with the manual clock and moves when the test advances it.
    public func wallClock(startingAt start: Date) -> @Sendable () -> Date {
        { [self] in
            let offset = now.offset.components
            return start.addingTimeInterval(Double(offset.seconds) + Double(offset.attoseconds) / 1e18)
        }
    }
}
