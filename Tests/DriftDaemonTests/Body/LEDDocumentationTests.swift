import DriftDaemon
import Foundation
import Testing

/// docs/leds-and-buttons.md is what installers read: it must match the code.
@Suite("LED and button documentation")
struct LEDDocumentationTests {
    static var document: String? {
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try? String(contentsOf: root.appendingPathComponent("docs/leds-and-buttons.md"), encoding: .utf8)
    }

    @Test func everyFaultClassHasItsCodeRow() throws {
        let doc = try #require(Self.document)
        for fault in FaultClass.allCases {
            #expect(doc.contains("| \(fault.blinkCode) | \(fault) |"), "no row for code \(fault.blinkCode) \(fault)")
        }
    }

    @Test func everyActionIsNamed() throws {
        let doc = try #require(Self.document)
        for action in ButtonAction.allCases {
            #expect(doc.contains("`\(action.rawValue)`"), "action \(action.rawValue) undocumented")
        }
    }

    @Test func documentedTimingsMatchTheCode() throws {
        let doc = try #require(Self.document)
        let settings = ButtonGestureRecognizer.Settings()
        #expect(settings.longPress == .seconds(2) && doc.contains("hold 2 s"))
        #expect(settings.doublePressGap == .milliseconds(400) && doc.contains("within 0.4 s"))
        #expect(settings.comboHold == .seconds(1) && doc.contains("together for 1 s"))
        #expect(LEDMapping.radioFlash == .milliseconds(80) && doc.contains("80 ms flash"))
        #expect(LEDPattern.codeFlash == .milliseconds(300) && doc.contains("300 ms on, 300 ms off"))
        #expect(LEDPattern.codeFlash + LEDPattern.codePause == .milliseconds(1800) && doc.contains("1.8 s"))
    }
}
