/// Needs a press of the box's button within the last `withinSeconds`, bound to the visitor
/// who asked for it (see ``PresenceBinder``).
public struct PresenceCondition: Sendable, Equatable, Hashable, Codable {
    public var withinSeconds: Int

    public init(withinSeconds: Int = 60) {
        self.withinSeconds = withinSeconds
    }

    func validate() throws(DomainValidationError) {
        guard (5...600).contains(withinSeconds) else {
            throw DomainValidationError(field: "presence.withinSeconds", value: "\(withinSeconds)", problem: "must be 5–600 s")
        }
    }
}
