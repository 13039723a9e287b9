/// A condition with the creator's optional hint (shown to visitors; ≤ 200 characters).
public struct BottleCondition: Sendable, Equatable, Codable {
    public var condition: Condition
    public var hint: String?

    public init(_ condition: Condition, hint: String? = nil) {
        self.condition = condition
        self.hint = hint
    }
}
