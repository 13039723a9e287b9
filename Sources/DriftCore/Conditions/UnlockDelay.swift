/// Opens only `seconds` after the bottle was created.
public struct UnlockDelay: Sendable, Equatable, Hashable, Codable {
    public var seconds: Int

    public init(seconds: Int) {
        self.seconds = seconds
    }

    func validate() throws(DomainValidationError) {
        guard (1...(365 * 86_400)).contains(seconds) else {
            throw DomainValidationError(field: "delay.seconds", value: "\(seconds)", problem: "must be 1 s to 365 days")
        }
    }
}
