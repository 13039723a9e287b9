import Foundation

/// A drift bottle hosted by this box: hidden content, opening conditions, lifecycle state.
///
/// Build one with ``create(_:id:shareCode:origin:creator:now:policy:)``; change its
/// state only through ``apply(_:at:)`` and ``recordFirstOpen(by:hostPosition:at:)`` so
/// that every change follows the ``Lifecycle`` table. Plain `Codable` data: the store
/// persists it as is (the password lives only as a ``PasswordHash``).
public struct Bottle: Sendable, Equatable, Codable, Identifiable {
    public let id: BottleID
    /// The code that reaches it while locked.
    public var shareCode: ShareCode
    public var placement: Placement
    /// Where it was dropped.
    public var origin: BottleOrigin
    public var content: BottleContent
    /// Hash of the creator's device token.
    public var creator: TokenHash
    /// The creator's general hint, shown with the conditions.
    public var hint: String?
    public var conditions: [BottleCondition]
    /// Hard expiry: the bottle ends at this instant whatever happens.
    public var expiresAt: Date
    /// Only one visitor may ever open it; it expires when they leave.
    public var isOneShot: Bool
    public let createdAt: Date
    /// When it was first opened, and by whom (the pseudonym in this bottle).
    public var firstOpenedAt: Date?
    public var firstOpener: ParticipantID?
    /// Great-circle distance from the origin to the hosting box at first open, metres.
    public var distanceTravelledMeters: Double?
    public private(set) var state: BottleState
    public private(set) var stateChangedAt: Date

    /// Validates a draft and makes a new, locked bottle.
    ///
    /// The first evaluation by the lifecycle processor moves it to openable when the
    /// ambient conditions hold.
    /// - Throws: ``DomainValidationError`` naming the first invalid field.
    public static func create(
        _ draft: BottleDraft, id: BottleID, shareCode: ShareCode, origin: BottleOrigin,
        creator: TokenHash, now: Date, policy: BottlePolicy = BottlePolicy()
    ) throws(DomainValidationError) -> Bottle {
        let expiresAt = try draft.validate(for: id, now: now, policy: policy)
        return Bottle(id: id, shareCode: shareCode, placement: draft.placement, origin: origin,
                      content: draft.content, creator: creator, hint: draft.hint, conditions: draft.conditions,
                      expiresAt: expiresAt, isOneShot: draft.isOneShot, createdAt: now, firstOpenedAt: nil,
                      firstOpener: nil, distanceTravelledMeters: nil, state: .locked, stateChangedAt: now)
    }

    /// Rebuilds a stored bottle field by field (for the store). No validation: use
    /// ``create(_:id:shareCode:origin:creator:now:policy:)`` for new input.
    public init(
        restoringID id: BottleID, shareCode: ShareCode, placement: Placement, origin: BottleOrigin,
        content: BottleContent, creator: TokenHash, hint: String?, conditions: [BottleCondition],
        expiresAt: Date, isOneShot: Bool, createdAt: Date, firstOpenedAt: Date?, firstOpener: ParticipantID?,
        distanceTravelledMeters: Double?, state: BottleState, stateChangedAt: Date
    ) {
        self.init(id: id, shareCode: shareCode, placement: placement, origin: origin, content: content,
                  creator: creator, hint: hint, conditions: conditions, expiresAt: expiresAt,
                  isOneShot: isOneShot, createdAt: createdAt, firstOpenedAt: firstOpenedAt,
                  firstOpener: firstOpener, distanceTravelledMeters: distanceTravelledMeters,
                  state: state, stateChangedAt: stateChangedAt)
    }

    private init(
        id: BottleID, shareCode: ShareCode, placement: Placement, origin: BottleOrigin,
        content: BottleContent, creator: TokenHash, hint: String?, conditions: [BottleCondition],
        expiresAt: Date, isOneShot: Bool, createdAt: Date, firstOpenedAt: Date?, firstOpener: ParticipantID?,
        distanceTravelledMeters: Double?, state: BottleState, stateChangedAt: Date
    ) {
        self.id = id
        self.shareCode = shareCode
        self.placement = placement
        self.origin = origin
        self.content = content
        self.creator = creator
        self.hint = hint
        self.conditions = conditions
        self.expiresAt = expiresAt
        self.isOneShot = isOneShot
        self.createdAt = createdAt
        self.firstOpenedAt = firstOpenedAt
        self.firstOpener = firstOpener
        self.distanceTravelledMeters = distanceTravelledMeters
        self.state = state
        self.stateChangedAt = stateChangedAt
    }

    /// Whether `token` belongs to the creator (constant-time).
    public func isCreator(_ token: TokenHash) -> Bool {
        creator.matches(token)
    }

    /// Replaces content, hint, conditions, expiry and one-shot flag; only by the creator and
    /// only before the first open. State stays as is; the next evaluation re-decides it.
    /// - Throws: ``BottleEditError``.
    public mutating func edit(_ draft: BottleDraft, by token: TokenHash, now: Date,
                              policy: BottlePolicy = BottlePolicy()) throws(BottleEditError) {
        guard isCreator(token) else { throw .lifecycle(.notCreator) }
        guard state == .locked || state == .openable, firstOpenedAt == nil else { throw .lifecycle(.alreadyOpened) }
        let expiry: Date
        do { expiry = try draft.validate(for: id, now: now, policy: policy, createdAt: createdAt) } catch {
            throw .invalid(error)
        }
        content = draft.content
        hint = draft.hint
        conditions = draft.conditions
        expiresAt = expiry
        isOneShot = draft.isOneShot
    }

    /// Applies a lifecycle trigger (see ``Lifecycle``) at `now`.
    /// Use ``recordFirstOpen(by:hostPosition:at:)`` for `.firstOpen` and ``retire(by:at:)`` for `.retired`.
    /// - Throws: ``LifecycleError`` when the table has no row for the current state.
    public mutating func apply(_ trigger: LifecycleTrigger, at now: Date) throws(LifecycleError) {
        state = try Lifecycle.transition(from: state, on: trigger)
        stateChangedAt = now
    }

    /// Opens the bottle for the first time: openable → active, recording who, when and
    /// how far it travelled (origin to `hostPosition`, when both are known).
    ///
    /// A bottle still stored as locked whose conditions were just found to hold (see
    /// ``BottleOpener``) goes through both table rows, `conditionsMet` then `firstOpen`.
    /// - Throws: ``LifecycleError`` unless the bottle is locked or openable.
    public mutating func recordFirstOpen(by participant: ParticipantID, hostPosition: GeoPoint?, at now: Date) throws(LifecycleError) {
        if state == .locked { try apply(.conditionsMet, at: now) }
        try apply(.firstOpen, at: now)
        firstOpenedAt = now
        firstOpener = participant
        if let from = origin.position, let to = hostPosition {
            distanceTravelledMeters = from.distance(to: to)
        }
    }

    /// The creator retires the bottle before it is opened: locked/openable → expired.
    /// - Throws: ``LifecycleError/notCreator`` or an invalid transition once opened.
    public mutating func retire(by token: TokenHash, at now: Date) throws(LifecycleError) {
        guard isCreator(token) else { throw .notCreator }
        try apply(.retired, at: now)
    }

    /// The condition with `kind`, if the bottle has one.
    public func condition(_ kind: ConditionKind) -> BottleCondition? {
        conditions.first { $0.condition.kind == kind }
    }
}

/// Why an edit was refused.
public enum BottleEditError: Error, Sendable, Equatable, CustomStringConvertible {
    case lifecycle(LifecycleError)
    case invalid(DomainValidationError)

    public var description: String {
        switch self {
        case .lifecycle(let error): error.description
        case .invalid(let error): error.description
        }
    }
}
