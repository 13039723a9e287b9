/// Why an otherwise well-typed value is not acceptable.
struct ValueProblem: Error, Sendable, Equatable {
    var message: String
    var hint: String?

    init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }
}

/// Reads the merged configuration tree section by section and collects every issue.
///
/// Each read names its key, which also builds the schema (known tables and keys,
/// in reading order); reads never stop at the first problem — a failed read
/// returns a placeholder, records the issue, and the caller carries on. After
/// all sections are read, ``reportUnknownKeys()`` flags whatever was not read.
/// A local helper of one load: not shared between tasks.
final class ConfigDecoder {
    let root: [String: TOMLNode]
    let origins: ConfigOrigins
    /// The file that should contain missing keys.
    let primaryFile: String

    private(set) var issues: [ConfigIssue] = []
    private(set) var schema: [(table: String, keys: [String])] = []
    private var failedPaths: Set<String> = []
    private var brokenTables: Set<String> = []

    init(root: [String: TOMLNode], origins: ConfigOrigins, primaryFile: String) {
        self.root = root
        self.origins = origins
        self.primaryFile = primaryFile
    }

    /// A reader for `[name]`. Reports a wrong type once if `name` is not a table.
    func section(_ name: String) -> SectionReader {
        if !schema.contains(where: { $0.table == name }) {
            schema.append((name, []))
        }
        var entries: [String: TOMLNode] = [:]
        if let node = root[name] {
            if case .table(let table) = node {
                entries = table
            } else if !brokenTables.contains(name) {
                brokenTables.insert(name)
                report(.wrongType, path: name, message: "expected a table, found \(node.typeDescription)",
                       hint: "write `[\(name)]` on its own line, then its keys below it")
            }
        }
        return SectionReader(decoder: self, table: name, entries: entries)
    }

    // MARK: - Issues

    /// Records an issue located where `path` was written (or, for a missing key, in the primary file).
    func report(_ kind: ConfigIssue.Kind, path: String, message: String, hint: String? = nil) {
        failedPaths.insert(path)
        let file: String
        let line: Int?
        if kind == .missingKey {
            file = primaryFile
            let table = path.split(separator: ".").first.map(String.init) ?? path
            let header = origins[table]
            line = header?.file == primaryFile ? header?.line : nil
        } else {
            let origin = origins[path]
            file = origin?.file ?? primaryFile
            line = origin?.line
        }
        issues.append(ConfigIssue(file: file, line: line, key: path, kind: kind, message: message, hint: hint))
    }

    /// True when `path` is present and was read without an issue.
    func isValid(_ path: String) -> Bool {
        !failedPaths.contains(path) && value(at: path) != nil
    }

    /// True when `path` was read without an issue (absent keys with defaults count as valid).
    func hasNoIssue(_ path: String) -> Bool {
        !failedPaths.contains(path)
    }

    /// True when the key is written in the merged tree.
    func isPresent(_ path: String) -> Bool {
        value(at: path) != nil
    }

    private func value(at path: String) -> TOMLNode? {
        let parts = path.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return root[path] }
        return root[parts[0]]?.tableValue?[parts[1]]
    }

    func markMissingSuppressed(_ table: String) -> Bool {
        brokenTables.contains(table)
    }

    fileprivate func register(table: String, key: String) {
        guard let index = schema.firstIndex(where: { $0.table == table }) else { return }
        if !schema[index].keys.contains(key) {
            schema[index].keys.append(key)
        }
    }

    // MARK: - Unknown keys

    /// Reports every key and table that no section read, with a "did you mean" hint.
    func reportUnknownKeys() {
        let tableNames = schema.map(\.table)
        for name in root.keys.sorted() {
            guard let node = root[name] else { continue }
            if let known = schema.first(where: { $0.table == name }) {
                guard case .table(let entries) = node else { continue }
                for key in entries.keys.sorted() where !known.keys.contains(key) {
                    let path = ConfigKeyPath.join(name, key)
                    let isTable = entries[key]?.tableValue != nil
                    report(.unknownKey, path: path,
                           message: isTable ? "unknown table [\(path)]" : "unknown key",
                           hint: hintForKey(key, inTable: name, isTable: isTable))
                }
            } else {
                let path = ConfigKeyPath.renderSegment(name)
                let isTable = node.tableValue != nil || {
                    if case .array(let elements) = node { return elements.first?.tableValue != nil }
                    return false
                }()
                var hint: String?
                if isTable, let table = Suggestion.closest(to: name, among: tableNames) {
                    hint = "did you mean `[\(table)]`?"
                } else if let owner = tablesContaining(name).first {
                    hint = "did you mean `\(owner).\(name)`? (write it under `[\(owner)]`)"
                } else if let (table, key) = closestKeyAnywhere(name) {
                    hint = "did you mean `\(table).\(key)`?"
                }
                report(.unknownKey, path: path, message: isTable ? "unknown table [\(path)]" : "unknown key",
                       hint: hint)
            }
        }
    }

    private func hintForKey(_ key: String, inTable table: String, isTable: Bool) -> String? {
        let own = schema.first(where: { $0.table == table })?.keys ?? []
        if let close = Suggestion.closest(to: key, among: own) {
            return "did you mean `\(table).\(close)`?"
        }
        if let owner = tablesContaining(key).first(where: { $0 != table }) {
            return "did you mean `\(owner).\(key)`? (it belongs in `[\(owner)]`)"
        }
        if isTable || schema.contains(where: { $0.table == key }) {
            if let other = Suggestion.closest(to: key, among: schema.map(\.table)) {
                return "did you mean the table `[\(other)]`?"
            }
        }
        if let (other, close) = closestKeyAnywhere(key), other != table {
            return "did you mean `\(other).\(close)`?"
        }
        return nil
    }

    private func tablesContaining(_ key: String) -> [String] {
        schema.filter { $0.keys.contains(key) }.map(\.table)
    }

    private func closestKeyAnywhere(_ word: String) -> (String, String)? {
        let all = schema.flatMap { entry in entry.keys.map { "\(entry.table).\($0)" } }
        let keysOnly = all.map { String($0.split(separator: ".", maxSplits: 1)[1]) }
        guard let match = Suggestion.closest(to: word, among: keysOnly),
              let index = keysOnly.firstIndex(of: match)
        else { return nil }
        let parts = all[index].split(separator: ".", maxSplits: 1).map(String.init)
        return (parts[0], parts[1])
    }
}

/// Typed reads of one table's keys. Absent keys take their default; a `nil` default means required.
struct SectionReader {
    let decoder: ConfigDecoder
    let table: String
    let entries: [String: TOMLNode]

    private func path(_ key: String) -> String { "\(table).\(key)" }

    /// Registers `key`, returns its node, or reports it missing when there is no default.
    private func node(_ key: String, required: Bool, requirement: String?) -> TOMLNode? {
        decoder.register(table: table, key: key)
        if let node = entries[key] { return node }
        if required, !decoder.markMissingSuppressed(table) {
            decoder.report(.missingKey, path: path(key),
                           message: requirement.map { "missing required key (\($0))" } ?? "missing required key",
                           hint: "add `\(key) = …` under `[\(table)]`")
        }
        return nil
    }

    private func wrongType(_ key: String, expected: String, found: TOMLNode) {
        decoder.report(.wrongType, path: path(key), message: "expected \(expected), found \(found.typeDescription)")
    }

    private func invalid(_ key: String, _ problem: ValueProblem) {
        decoder.report(.invalidValue, path: path(key), message: problem.message, hint: problem.hint)
    }

    /// A string. `requirement` explains a conditional requirement in the missing-key message.
    func string(
        _ key: String, default defaultValue: String? = nil, requirement: String? = nil,
        check: (String) -> ValueProblem? = { _ in nil }
    ) -> String {
        guard let node = node(key, required: defaultValue == nil, requirement: requirement) else {
            return defaultValue ?? ""
        }
        guard case .string(let value) = node else {
            wrongType(key, expected: "a string", found: node)
            return defaultValue ?? ""
        }
        if let problem = check(value) {
            invalid(key, problem)
            return defaultValue ?? ""
        }
        return value
    }

    /// An integer (decimal, `0x`, `0o` or `0b`), optionally bounded.
    func int(
        _ key: String, default defaultValue: Int? = nil, min: Int? = nil, max: Int? = nil,
        check: (Int) -> ValueProblem? = { _ in nil }
    ) -> Int {
        guard let node = node(key, required: defaultValue == nil, requirement: nil) else {
            return defaultValue ?? 0
        }
        guard case .integer(let value) = node else {
            wrongType(key, expected: "an integer", found: node)
            return defaultValue ?? 0
        }
        if let problem = Self.rangeProblem(value, min: min, max: max, render: String.init) ?? check(value) {
            invalid(key, problem)
            return defaultValue ?? 0
        }
        return value
    }

    /// A number; integers are accepted too (`frequency_mhz = 869` is 869.0).
    func double(
        _ key: String, default defaultValue: Double? = nil, min: Double? = nil, max: Double? = nil,
        above: Double? = nil, check: (Double) -> ValueProblem? = { _ in nil }
    ) -> Double {
        optionalDouble(key, required: defaultValue == nil, min: min, max: max, above: above, check: check)
            ?? defaultValue ?? 0
    }

    /// A number that may be absent (`nil`), or required when `required` is true.
    func optionalDouble(
        _ key: String, required: Bool = false, min: Double? = nil, max: Double? = nil, above: Double? = nil,
        check: (Double) -> ValueProblem? = { _ in nil }
    ) -> Double? {
        guard let node = node(key, required: required, requirement: nil) else { return nil }
        let value: Double
        switch node {
        case .float(let number): value = number
        case .integer(let number): value = Double(number)
        default:
            wrongType(key, expected: "a number", found: node)
            return nil
        }
        guard value.isFinite else {
            invalid(key, ValueProblem("must be a finite number, found \(TOMLWriter.float(value))"))
            return nil
        }
        if let above, value <= above {
            invalid(key, ValueProblem("must be greater than \(Self.render(above)), found \(Self.render(value))"))
            return nil
        }
        if let problem = Self.rangeProblem(value, min: min, max: max, render: Self.render) ?? check(value) {
            invalid(key, problem)
            return nil
        }
        return value
    }

    func bool(_ key: String, default defaultValue: Bool? = nil) -> Bool {
        guard let node = node(key, required: defaultValue == nil, requirement: nil) else {
            return defaultValue ?? false
        }
        guard case .bool(let value) = node else {
            var hint: String?
            if case .string(let text) = node, ["true", "false", "yes", "no", "on", "off"].contains(text.lowercased()) {
                hint = "write `true` or `false` without quotes"
            }
            decoder.report(.wrongType, path: path(key), message: "expected a boolean, found \(node.typeDescription)",
                           hint: hint)
            return defaultValue ?? false
        }
        return value
    }

    /// A boolean that may be left out: `nil` then, and the caller decides from other settings.
    func optionalBool(_ key: String) -> Bool? {
        node(key, required: false, requirement: nil) == nil ? nil : bool(key, default: false)
    }

    /// An integer that may be left out: `nil` then (also when it is invalid, after the issue
    /// is reported), and the caller decides from other settings.
    func optionalInt(_ key: String, min: Int? = nil, max: Int? = nil) -> Int? {
        guard node(key, required: false, requirement: nil) != nil else { return nil }
        let value = int(key, default: 0, min: min, max: max)
        return decoder.hasNoIssue(path(key)) ? value : nil
    }

    /// One of the raw values of `E`, with a "did you mean" hint for near misses.
    func choice<E: RawRepresentable & CaseIterable>(
        _ key: String, default defaultValue: E? = nil, requirement: String? = nil
    ) -> E where E.RawValue == String {
        let allowed = E.allCases.map(\.rawValue)
        let fallback = defaultValue ?? E.allCases.first!
        guard let node = node(key, required: defaultValue == nil, requirement: requirement) else { return fallback }
        guard case .string(let text) = node else {
            wrongType(key, expected: "a string", found: node)
            return fallback
        }
        guard let value = E(rawValue: text) else {
            let list = allowed.map { "`\($0)`" }.joined(separator: ", ")
            let hint = Suggestion.closest(to: text, among: allowed).map { "did you mean `\($0)`?" }
            invalid(key, ValueProblem("must be one of \(list), found `\(text)`", hint: hint))
            return fallback
        }
        return value
    }

    /// An array of strings, each checked by `check`.
    func stringArray(
        _ key: String, default defaultValue: [String], check: (String) -> ValueProblem? = { _ in nil }
    ) -> [String] {
        guard let node = node(key, required: false, requirement: nil) else { return defaultValue }
        guard case .array(let elements) = node else {
            wrongType(key, expected: "an array of strings", found: node)
            return defaultValue
        }
        var values: [String] = []
        for (position, element) in elements.enumerated() {
            guard case .string(let text) = element else {
                decoder.report(.wrongType, path: path(key),
                               message: "expected an array of strings, element \(position + 1) is \(element.typeDescription)")
                return defaultValue
            }
            if let problem = check(text) {
                invalid(key, ValueProblem("element \(position + 1): \(problem.message)", hint: problem.hint))
                return defaultValue
            }
            values.append(text)
        }
        return values
    }

    /// A `HOST:PORT` string.
    func hostPort(_ key: String, default defaultValue: String? = nil) -> HostPort {
        let fallback = HostPort(host: "127.0.0.1", port: 1)
        var parsed: HostPort?
        _ = string(key, default: defaultValue) { text in
            do throws(HostPort.ParseError) {
                parsed = try HostPort.parse(text)
                return nil
            } catch {
                return ValueProblem(error.description)
            }
        }
        if let parsed { return parsed }
        if let defaultValue, decoder.hasNoIssue(path(key)), let value = try? HostPort.parse(defaultValue) {
            return value
        }
        return fallback
    }

    // MARK: - Range messages

    private static func rangeProblem<T: Comparable>(
        _ value: T, min: T?, max: T?, render: (T) -> String
    ) -> ValueProblem? {
        switch (min, max) {
        case (let low?, let high?) where value < low || value > high:
            return ValueProblem("must be between \(render(low)) and \(render(high)), found \(render(value))")
        case (let low?, nil) where value < low:
            return ValueProblem("must be at least \(render(low)), found \(render(value))")
        case (nil, let high?) where value > high:
            return ValueProblem("must be at most \(render(high)), found \(render(value))")
        default:
            return nil
        }
    }

    private static func render(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
