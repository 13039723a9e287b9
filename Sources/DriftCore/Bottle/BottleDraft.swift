import Foundation

/// What a creator submits to drop or edit a bottle (the password already hashed with
/// ``PasswordHasher``).
public struct BottleDraft: Sendable, Equatable {
    public var placement: Placement
    public var content: BottleContent
    public var hint: String?
    public var conditions: [BottleCondition]
    /// How long the bottle may live at most, from creation; `nil` = the policy default.
    public var lifetime: TimeInterval?
    public var isOneShot: Bool

    public init(placement: Placement = .nearby, content: BottleContent, hint: String? = nil,
                conditions: [BottleCondition] = [], lifetime: TimeInterval? = nil, isOneShot: Bool = false) {
        self.placement = placement
        self.content = content
        self.hint = hint
        self.conditions = conditions
        self.lifetime = lifetime
        self.isOneShot = isOneShot
    }

    /// Validates everything and returns the hard expiry instant.
    func validate(for id: BottleID, now: Date, policy: BottlePolicy, createdAt: Date? = nil) throws(DomainValidationError) -> Date {
        try content.validate(for: id)
        if let hint {
            try TextRules.check(hint, field: "hint", maximumLength: policy.maximumHintLength,
                                maximumBytes: policy.maximumHintLength * 4, allowLineBreaks: false)
        }
        guard conditions.count <= policy.maximumConditions else {
            throw DomainValidationError(field: "conditions", value: "\(conditions.count)",
                                        problem: "at most \(policy.maximumConditions) conditions")
        }
        var seen = Set<ConditionKind>()
        for entry in conditions {
            try entry.condition.validate()
            guard seen.insert(entry.condition.kind).inserted else {
                throw DomainValidationError(field: "conditions", value: entry.condition.kind.rawValue,
                                            problem: "each kind of condition may appear once")
            }
            if let hint = entry.hint {
                try TextRules.check(hint, field: "conditions.hint", maximumLength: policy.maximumHintLength,
                                    maximumBytes: policy.maximumHintLength * 4, allowLineBreaks: false)
            }
        }
        let lifetime = self.lifetime ?? policy.defaultLifetime
        guard lifetime.isFinite, lifetime >= 60, lifetime <= policy.maximumLifetime else {
            throw DomainValidationError(field: "lifetime", value: Text.duration(lifetime),
                                        problem: "must be 1 min to \(Text.duration(policy.maximumLifetime))")
        }
        let expiry = (createdAt ?? now).addingTimeInterval(lifetime)
        guard expiry > now else {
            throw DomainValidationError(field: "lifetime", value: Text.duration(lifetime),
                                        problem: "would already be over")
        }
        return expiry
    }
}
