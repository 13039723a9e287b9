import Foundation

/// The result of `driftd config check FILE`, as text or JSON.
///
/// The command prints ``renderText()`` (or ``renderJSON()`` with `--json`) and exits
/// with ``exitCode``: 0 when valid, 1 when there is any issue.
public struct ConfigReport: Sendable, Equatable {
    /// The file that was checked.
    public var file: String
    /// Files read (board profile, then the file); empty when loading stopped early.
    public var files: [String]
    public var issues: [ConfigIssue]
    /// The power profile the valid file runs (`power.profile`, or `beacon` for `camp.beacon_kit`).
    public var powerProfile: PowerProfile?

    public init(file: String, files: [String], issues: [ConfigIssue], powerProfile: PowerProfile? = nil) {
        self.file = file
        self.files = files
        self.issues = issues
        self.powerProfile = powerProfile
    }

    public var isValid: Bool { issues.isEmpty }

    public var exitCode: Int32 { isValid ? 0 : 1 }

    /// Loads `path` and reports every issue.
    public static func check(path: String, loader: ConfigLoader = ConfigLoader()) -> ConfigReport {
        do {
            let loaded = try loader.load(path: path)
            return ConfigReport(file: path, files: loaded.files, issues: [], powerProfile: loaded.configuration.powerProfile)
        } catch {
            return ConfigReport(file: path, files: [], issues: error.issues)
        }
    }

    /// One issue per line, then a summary line.
    public func renderText() -> String {
        if isValid {
            let profile = files.count > 1 ? " (on board profile \(files[0]))" : ""
            // The default profile goes unsaid; a beacon kit says so (docs/power.md).
            let power = powerProfile.map { $0 == .default ? "" : ", power profile \($0.rawValue)" } ?? ""
            return "\(file): OK\(profile)\(power)\n"
        }
        let count = issues.count == 1 ? "1 problem" : "\(issues.count) problems"
        return issues.map(\.description).joined(separator: "\n") + "\n\(file): \(count)\n"
    }

    /// `{"file": …, "valid": …, "files": […], "powerProfile": "default"|"beacon" (valid files), "issues": [{file, line, column, key, kind, message, hint, description}]}`.
    public func renderJSON() -> String {
        var object: [String: Any] = [
            "file": file,
            "valid": isValid,
            "files": files,
            "issues": issues.map(Self.jsonObject),
        ]
        if let powerProfile { object["powerProfile"] = powerProfile.rawValue }
        return Self.serialise(object)
    }

    /// Just the issues as a JSON array.
    public static func json(issues: [ConfigIssue]) -> String {
        serialise(issues.map(jsonObject))
    }

    private static func jsonObject(_ issue: ConfigIssue) -> [String: Any] {
        [
            "file": issue.file,
            "line": issue.line.map { $0 as Any } ?? NSNull(),
            "column": issue.column.map { $0 as Any } ?? NSNull(),
            "key": issue.key,
            "kind": issue.kind.rawValue,
            "message": issue.message,
            "hint": issue.hint.map { $0 as Any } ?? NSNull(),
            "description": issue.description,
        ]
    }

    private static func serialise(_ object: Any) -> String {
        let options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: options) else {
            // Only strings, numbers, booleans, arrays and dictionaries go in: always serialisable.
            preconditionFailure("config report is not JSON-serialisable")
        }
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
