/// Waits until `condition` holds, looking every `interval`, for at most `limit` of real time;
/// returns whether it held. Test synchronisation with work on other threads that offers no
/// event to await (a dispatch queue arming a wait, a driver reaching a state): what it waits
/// for is the condition, never the time.
public func eventually(
    within limit: Duration = .seconds(30), every interval: Duration = .milliseconds(5), _ condition: () -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try await Task.sleep(for: interval)
    }
    return true
}
