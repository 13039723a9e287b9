import DriftCore
import Foundation

/// One opening condition as the API takes and gives it: a flat object tagged by `kind`
/// (see `api/openapi.json`, `ConditionInput`). Unknown kinds and missing fields are
/// refused with the field named.
struct ConditionInput: Codable, Sendable, Equatable {
    var kind: String
    var hint: String?
    var password: String?
    var start: String?
    var end: String?
    var days: [String]?
    var from: String?
    var through: String?
    var phases: [String]?
    var min: Double?
    var max: Double?
    var trend: String?
    var hours: Int?
    var withinMinutes: Int?
    var minimumMillimetres: Double?
    var latitude: Double?
    var longitude: Double?
    var radiusMeters: Double?
    var withinSeconds: Int?
    var maximumKilometres: Double?
    var seconds: Int?

    init(kind: String, hint: String? = nil) {
        self.kind = kind
        self.hint = hint
    }

    static let weekdays: [String: Weekday] = Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0.name.lowercased(), $0) })

    /// The domain condition. `existingPassword` is kept when a password condition comes
    /// without a password (an edit that leaves it unchanged); a new password is checked but
    /// not hashed: the condition holds `standIn`, and the password is handed back to hash
    /// once the whole request has been checked (``CheckedDraft``).
    func condition(existingPassword: PasswordHash?, standIn: PasswordHash) throws -> (BottleCondition, newPassword: String?) {
        let field = "conditions.\(kind)"
        func need<T>(_ value: T?, _ name: String) throws -> T {
            guard let value else { throw APIError.invalid(field: "\(field).\(name)", problem: "is required for \(kind)") }
            return value
        }
        let condition: Condition
        var newPassword: String?
        switch kind {
        case "password":
            if let password, !password.isEmpty {
                try PasswordHasher.check(password)
                newPassword = password
                condition = .password(standIn)
            } else if let existingPassword {
                condition = .password(existingPassword)
            } else {
                throw APIError.invalid(field: "\(field).password", problem: "is required for password")
            }
        case "timeOfDay":
            condition = .timeOfDay(TimeOfDayWindow(startMinute: try Self.minute(need(start, "start"), field: "\(field).start"),
                                                   endMinute: try Self.minute(need(end, "end"), field: "\(field).end")))
        case "daysOfWeek":
            let names = try need(days, "days")
            condition = .daysOfWeek(Set(try names.map { name in
                guard let day = Self.weekdays[name.lowercased()] else {
                    throw APIError.invalid(field: "\(field).days", problem: "'\(name)' is not a day (monday … sunday)")
                }
                return day
            }))
        case "dateRange":
            condition = .dateRange(DateRange(from: try from.map { try LocalDate(iso: $0) }, through: try through.map { try LocalDate(iso: $0) }))
        case "solar":
            condition = .solar(Set(try need(phases, "phases").map { name in
                guard let phase = SolarPhase(rawValue: name) else {
                    throw APIError.invalid(field: "\(field).phases", problem: "'\(name)' is not one of day, civilDusk, night, civilDawn")
                }
                return phase
            }))
        case "temperature": condition = .weather(.temperature(ValueRange(minimum: min, maximum: max)))
        case "humidity": condition = .weather(.humidity(ValueRange(minimum: min, maximum: max)))
        case "pressure": condition = .weather(.pressure(ValueRange(minimum: min, maximum: max)))
        case "pressureTrend":
            let name = try need(trend, "trend")
            guard let value = PressureTrend(rawValue: name) else {
                throw APIError.invalid(field: "\(field).trend", problem: "'\(name)' is not one of rising, falling, steady")
            }
            condition = .weather(.pressureTrend(PressureTrendCondition(trend: value, hours: try need(hours, "hours"))))
        case "rain":
            condition = .weather(.rain(RainCondition(withinMinutes: try need(withinMinutes, "withinMinutes"),
                                                     minimumMillimetres: minimumMillimetres ?? RainGaugeHistory.standardMillimetresPerTip)))
        case "boxPosition":
            condition = .boxPosition(BoxPositionCondition(
                center: try GeoPoint(latitude: need(latitude, "latitude"), longitude: need(longitude, "longitude")),
                radiusMeters: try need(radiusMeters, "radiusMeters")))
        case "presence": condition = .presence(PresenceCondition(withinSeconds: withinSeconds ?? 60))
        case "distanceFromOrigin": condition = .distanceFromOrigin(DistanceFromOriginCondition(maximumKilometres: try need(maximumKilometres, "maximumKilometres")))
        case "delay": condition = .delay(UnlockDelay(seconds: try need(seconds, "seconds")))
        default:
            throw APIError.invalid(field: "conditions.kind", problem: "'\(kind)' is not a condition kind")
        }
        return (BottleCondition(condition, hint: try VisitorText.normalised(hint, field: "\(field).hint")), newPassword)
    }

    /// The condition as the creator set it (a password without the password).
    init(_ entry: BottleCondition) {
        self.init(kind: entry.condition.kind.rawValue, hint: entry.hint)
        switch entry.condition {
        case .password: break
        case .timeOfDay(let window):
            start = Self.clock(window.startMinute)
            end = Self.clock(window.endMinute)
        case .daysOfWeek(let set): days = set.sorted().map { $0.name.lowercased() }
        case .dateRange(let range):
            from = range.from?.description
            through = range.through?.description
        case .solar(let set): phases = SolarPhase.allCases.filter(set.contains).map(\.rawValue)
        case .weather(let weather):
            switch weather {
            case .temperature(let range), .humidity(let range), .pressure(let range):
                min = range.minimum
                max = range.maximum
            case .pressureTrend(let value):
                trend = value.trend.rawValue
                hours = value.hours
            case .rain(let rain):
                withinMinutes = rain.withinMinutes
                minimumMillimetres = rain.minimumMillimetres
            }
        case .boxPosition(let position):
            latitude = position.center.latitude
            longitude = position.center.longitude
            radiusMeters = position.radiusMeters
        case .presence(let presence): withinSeconds = presence.withinSeconds
        case .distanceFromOrigin(let distance): maximumKilometres = distance.maximumKilometres
        case .delay(let delay): seconds = delay.seconds
        }
    }

    static func minute(_ text: String, field: String) throws -> Int {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
              (0...23).contains(hour), (0...59).contains(minute) else {
            throw APIError.invalid(field: field, problem: "'\(text)' is not a time like 07:30")
        }
        return hour * 60 + minute
    }

    static func clock(_ minute: Int) -> String {
        String(format: "%02d:%02d", minute / 60, minute % 60)
    }
}

/// A bottle as a creator submits it (create and edit).
struct DraftInput: Codable, Sendable, Equatable {
    var text: String
    var hint: String?
    var conditions: [ConditionInput]?
    var lifetimeSeconds: Int?
    var oneShot: Bool?
    /// `nearby` (this box, the default), `manual` (with ``to`` or ``near``) or `drift`.
    var placement: String?
    /// For `manual`: the destination box's name in the mesh directory.
    var to: String?
    /// For `manual`: send to the box nearest this point.
    var near: PointInput?

    struct PointInput: Codable, Sendable, Equatable {
        var latitude: Double
        var longitude: Double
    }

    /// Where the bottle goes: `nil` for this box.
    func destination() throws -> MeshBottleService.Destination? {
        switch placement ?? "nearby" {
        case "nearby":
            return nil
        case "drift":
            return .drift
        case "manual":
            if let to, !to.trimmingCharacters(in: .whitespaces).isEmpty { return .named(to) }
            if let near {
                do { return .nearest(try GeoPoint(latitude: near.latitude, longitude: near.longitude)) } catch {
                    throw APIError.invalid(field: "near", problem: error.problem)
                }
            }
            throw APIError.invalid(field: "to", problem: "name the box (to) or a point (near) for a manual placement")
        case let other:
            throw APIError.invalid(field: "placement", problem: "must be nearby, manual or drift, found \"\(other)\"")
        }
    }

    /// The domain draft, checked field by field but not hashed (``CheckedDraft``); media are
    /// kept from `existing` (an edit), passwords too when not retyped. A new password's hash
    /// is `standIn` until ``CheckedDraft/hashed(on:)``.
    func draft(existing: Bottle?, maximumConditions: Int, standIn: PasswordHash) throws -> CheckedDraft {
        if existing != nil, let placement, placement != "nearby" {
            throw APIError.invalid(field: "placement", problem: "a bottle stays where it is; placement cannot change")
        }
        let inputs = conditions ?? []
        guard inputs.count <= maximumConditions else {
            throw APIError.invalid(field: "conditions", problem: "at most \(maximumConditions) conditions")
        }
        var existingPassword: PasswordHash?
        if let entry = existing?.condition(.password), case .password(let hash) = entry.condition { existingPassword = hash }
        var built: [BottleCondition] = []
        var newPassword: (index: Int, password: String)?
        for input in inputs {
            let (condition, password) = try input.condition(existingPassword: existingPassword, standIn: standIn)
            // Two password conditions are refused by the draft's validation; the first is enough here.
            if let password, newPassword == nil { newPassword = (built.count, password) }
            built.append(condition)
        }
        if existing == nil, text.isEmpty {
            throw APIError.invalid(field: "text", problem: "write something (attach a photo or whisper after creating it)")
        }
        let text = try VisitorText.normalised(text, field: "text")
        let hint = try VisitorText.normalised(hint, field: "hint")
        var content = existing?.content ?? BottleContent(text: text)
        content.text = text
        let draft = BottleDraft(placement: .nearby, content: content, hint: hint?.isEmpty == true ? nil : hint, conditions: built,
                                lifetime: lifetimeSeconds.map(Double.init), isOneShot: oneShot ?? false)
        return CheckedDraft(draft: draft, newPassword: newPassword)
    }

    /// The creator's current settings, for the edit form.
    init(_ bottle: Bottle) {
        text = bottle.content.text
        hint = bottle.hint
        conditions = bottle.conditions.map(ConditionInput.init)
        lifetimeSeconds = Int(bottle.expiresAt.timeIntervalSince(bottle.createdAt).rounded())
        oneShot = bottle.isOneShot
        placement = "nearby"
        to = nil
        near = nil
    }
}

extension BottleDraft {
    /// The draft that reproduces `bottle` (to change one part of it, e.g. its media).
    init(reproducing bottle: Bottle) {
        self.init(placement: bottle.placement, content: bottle.content, hint: bottle.hint, conditions: bottle.conditions,
                  lifetime: bottle.expiresAt.timeIntervalSince(bottle.createdAt), isOneShot: bottle.isOneShot)
    }
}
