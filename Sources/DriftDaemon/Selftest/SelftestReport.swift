import Foundation

/// The result of `driftd selftest`: one line per check.
public struct SelftestReport: Codable, Sendable, Equatable {
    /// One check's outcome.
    public struct Check: Codable, Sendable, Equatable {
        public enum Status: String, Codable, Sendable {
            case pass = "PASS"
            case fail = "FAIL"
            case skip = "SKIP"
        }

        /// What was checked, e.g. `gpio.line presence (presence)`.
        public var name: String
        public var status: Status
        /// Why, in a field tester's words.
        public var detail: String

        public init(_ name: String, _ status: Status, _ detail: String) {
            self.name = name
            self.status = status
            self.detail = detail
        }
    }

    public var board: String
    public var checks: [Check]
    /// Serial ports found on this machine (to help find the GPS or a Meshtastic node).
    public var serialPorts: [SerialPortLine]

    /// A serial port as listed for a field tester.
    public struct SerialPortLine: Codable, Sendable, Equatable {
        public var path: String
        public var transport: String
        public var usbID: String?
        public var description: String?
    }

    /// Whether every configured device passed (skips do not count).
    public var passed: Bool { !checks.contains { $0.status == .fail } }

    /// The text printed by `driftd selftest`.
    public func renderText() -> String {
        var lines = ["driftd selftest — board \(board)"]
        let width = checks.map(\.name.count).max() ?? 0
        for check in checks {
            lines.append("\(check.status.rawValue)  \(check.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(check.detail)")
        }
        if serialPorts.isEmpty {
            lines.append("serial ports: none found")
        } else {
            lines.append("serial ports:")
            for port in serialPorts {
                var text = "  \(port.path) (\(port.transport))"
                if let usbID = port.usbID { text += " usb \(usbID)" }
                if let description = port.description { text += " — \(description)" }
                lines.append(text)
            }
        }
        let failed = checks.filter { $0.status == .fail }.count
        lines.append(failed == 0 ? "selftest passed (\(checks.count) checks)" : "selftest FAILED: \(failed) of \(checks.count) checks")
        return lines.joined(separator: "\n") + "\n"
    }
}
