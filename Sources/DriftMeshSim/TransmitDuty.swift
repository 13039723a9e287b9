/// A box's own time on air against a duty-cycle rule: the most airtime inside any window
/// (one hour for the rules of `DutyCyclePolicy`).
public enum TransmitDuty {
    /// The most time on air inside any window of `window` µs, for one box's transmissions
    /// (start and time on air, µs; in order and not overlapping, as a half-duplex radio sends
    /// them). A transmission cut by the window's end counts with the part inside. A window
    /// holding the most can be taken to start where a transmission starts.
    public static func busiestWindow(_ sent: [(start: Int64, airUs: Int64)], window: Int64) -> Int64 {
        var busiest: Int64 = 0
        var j = 0
        var inside: Int64 = 0
        for i in sent.indices {
            if j < i {
                j = i
                inside = 0
            }
            let end = sent[i].start + window
            while j < sent.count, sent[j].start + sent[j].airUs <= end {
                inside += sent[j].airUs
                j += 1
            }
            let partial = j < sent.count && sent[j].start < end ? end - sent[j].start : 0
            busiest = max(busiest, inside + partial)
            if j > i { inside -= sent[i].airUs }
        }
        return busiest
    }
}
