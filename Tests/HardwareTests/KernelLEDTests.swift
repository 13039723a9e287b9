import Foundation
import Hardware
import Testing
import TestSupport

@Suite("Kernel LEDs (sysfs LED class, simulated class directory)")
struct KernelLEDTests {
    private func read(_ directory: TemporaryDirectory, _ led: String, _ attribute: String) throws -> String {
        try String(contentsOfFile: directory.appending("\(led)/\(attribute)"), encoding: .utf8)
    }

    @Test("a square wave is written as held levels joined by zero-length steps")
    func patternText() {
        let heartbeat: [(level: Bool, duration: Duration)] = [
            (true, .milliseconds(100)), (false, .milliseconds(100)), (true, .milliseconds(100)), (false, .milliseconds(700)),
        ]
        #expect(KernelLED.patternText(heartbeat) == "1 100 1 0 0 100 0 0 1 100 1 0 0 700 0 0")
        #expect(KernelLED.patternText([(true, .seconds(1))], maximumBrightness: 255) == "255 1000 255 0")
    }

    @Test("opening sets the pattern trigger once; play writes repeat and pattern, and only on a change")
    func playsPatterns() throws {
        let directory = try TemporaryDirectory(prefix: "leds")
        defer { directory.remove() }
        let sysfs = SimulatedLEDClass(root: directory.path)
        try sysfs.install(["drift-status"])
        let led = try KernelLED(name: "drift-status", root: directory.path)
        #expect(led.canPlay)
        #expect(try read(directory, "drift-status", "trigger") == "pattern")

        try led.play([(true, .milliseconds(300)), (false, .milliseconds(300))])
        #expect(try read(directory, "drift-status", "repeat") == "-1")
        #expect(try read(directory, "drift-status", "pattern") == "1 300 1 0 0 300 0 0")

        // The same pattern again writes nothing (it would restart the kernel's cycle).
        try FileManager.default.removeItem(atPath: directory.appending("drift-status/pattern"))
        try led.play([(true, .milliseconds(300)), (false, .milliseconds(300))])
        #expect(!FileManager.default.fileExists(atPath: directory.appending("drift-status/pattern")))

        // A steady level stays on the trigger: a constant pattern, `brightness` untouched.
        try led.set(true)
        #expect(try read(directory, "drift-status", "pattern") == "1 60000 1 0")
        #expect(try read(directory, "drift-status", "trigger") == "pattern")
        #expect(try sysfs.level(of: "drift-status"))
        led.turnOff()
        #expect(try read(directory, "drift-status", "pattern") == "0 60000 0 0")
        #expect(try sysfs.level(of: "drift-status") == false)
    }

    @Test("without the pattern trigger the LED is switched through brightness")
    func noPatternTrigger() throws {
        let directory = try TemporaryDirectory(prefix: "leds")
        defer { directory.remove() }
        let sysfs = SimulatedLEDClass(root: directory.path)
        try sysfs.install(["drift-gps"], withPattern: false)
        let led = try KernelLED(name: "drift-gps", root: directory.path)
        #expect(!led.canPlay)
        #expect(try read(directory, "drift-gps", "trigger").hasPrefix("[none]"))
        try led.set(true)
        #expect(try read(directory, "drift-gps", "brightness") == "1")
        #expect(try sysfs.level(of: "drift-gps"))
        try led.set(false)
        #expect(try sysfs.level(of: "drift-gps") == false)
    }

    @Test("a missing LED is not there and cannot be opened")
    func missing() throws {
        let directory = try TemporaryDirectory(prefix: "leds")
        defer { directory.remove() }
        #expect(!KernelLED.exists("drift-status", root: directory.path))
        #expect(throws: (any Error).self) { try KernelLED(name: "drift-status", root: directory.path) }
    }

    @Test("the simulated kernel plays a pattern as ledtrig-pattern does: held levels, linear ramps, repeating")
    func simulatedBrightness() {
        let heartbeat = "1 100 1 0 0 100 0 0 1 100 1 0 0 700 0 0"
        let samples: [(Int, Double)] = [(0, 1), (99, 1), (100, 0), (199, 0), (200, 1), (299, 1), (300, 0), (999, 0), (1000, 1), (2150, 0), (2250, 1)]
        for (milliseconds, expected) in samples {
            #expect(SimulatedLEDClass.brightness(pattern: heartbeat, at: .milliseconds(milliseconds)) == expected, "at \(milliseconds) ms")
        }
        // A ramp from 0 to 255 over 1 s, then back over 1 s.
        #expect(SimulatedLEDClass.brightness(pattern: "0 1000 255 1000", at: .milliseconds(500)) == 127.5)
        #expect(SimulatedLEDClass.brightness(pattern: "0 1000 255 1000", at: .milliseconds(1500)) == 127.5)
        #expect(SimulatedLEDClass.brightness(pattern: "1 100 0", at: .zero) == nil, "an odd count is malformed")
    }
}
