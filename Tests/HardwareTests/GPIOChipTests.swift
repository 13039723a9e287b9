import DriftSystem
import Hardware
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("GPIO chips (simulated driver)")
struct GPIOChipTests {
    let driver = makeSimulatedPiBoard()

    @Test("opens by label, with and without the label: prefix")
    func openByLabel() throws {
        #expect(try GPIOChip.open("label:pinctrl-rp1", driver: driver).info.name == "gpiochip0")
        #expect(try GPIOChip.open("gpio-expander", driver: driver).info.name == "gpiochip1")
        #expect(try GPIOChip.open(.label("gpio-expander"), driver: driver).info.lineCount == 4)
    }

    @Test("opens by kernel name and by path")
    func openByNameAndPath() throws {
        #expect(try GPIOChip.open("gpiochip1", driver: driver).info.label == "gpio-expander")
        #expect(try GPIOChip.open("name:gpiochip0", driver: driver).info.label == "pinctrl-rp1")
        #expect(try GPIOChip.open("/dev/gpiochip1", driver: driver).info.label == "gpio-expander")
        #expect(try GPIOChip.open("path:/dev/gpiochip0", driver: driver).info.path == "/dev/gpiochip0")
    }

    @Test("a missing chip is chipNotFound naming the selector", arguments: [
        "label:pinctrl-bcm2711", "nonexistent", "/dev/gpiochip9", "name:gpiochip9", "path:/dev/gpiochip9",
    ])
    func missingChip(selector: String) throws {
        let error = #expect(throws: GPIOError.self) { try GPIOChip.open(selector, driver: driver) }
        #expect(error?.kind == .chipNotFound)
        #expect(error?.chip == selector)
        #expect(error?.systemError?.errno == ENOENT)
    }

    @Test("a chip name with a slash is rejected, not treated as a path")
    func nameWithSlash() throws {
        let error = #expect(throws: GPIOError.self) { try GPIOChip.open("name:../gpiochip0", driver: driver) }
        #expect(error?.kind == .invalidArgument)
    }

    @Test("enumerates chips in driver order")
    func enumeratesChips() throws {
        let chips = try GPIOChip.chips(driver: driver)
        #expect(chips.map(\.name) == ["gpiochip0", "gpiochip1"])
        #expect(chips.map(\.label) == ["pinctrl-rp1", "gpio-expander"])
        #expect(chips.map(\.lineCount) == [54, 4])
    }

    @Test("finds lines by name and reports missing ones")
    func linesByName() throws {
        let chip = try GPIOChip.open("label:pinctrl-rp1", driver: driver)
        #expect(try chip.lineOffset(named: "GPIO17") == 17)
        let line = try chip.line(named: "GPIO27")
        #expect(line.offset == 27 && line.name == "GPIO27" && !line.isUsed)
        let error = #expect(throws: GPIOError.self) { try chip.line(named: "GPIO99") }
        #expect(error?.kind == .lineNotFound)
        #expect(error?.line == "GPIO99")
        #expect(error?.chip == "gpiochip0")
        let range = #expect(throws: GPIOError.self) { try chip.lineInfo(offset: 54) }
        #expect(range?.kind == .lineNotFound)
        #expect(try chip.lines().count == 54)
    }

    @Test("locates a line by name across chips, whatever their numbers")
    func locatesLine() throws {
        let (chip, offset) = try GPIOChip.locateLine(named: "BUTTON_A", driver: driver)
        #expect(chip.info.label == "gpio-expander")
        #expect(offset == 3)
        let (header, pin) = try GPIOChip.locateLine(named: "GPIO4", driver: driver)
        #expect(header.info.name == "gpiochip0" && pin == 4)
        let error = #expect(throws: GPIOError.self) { try GPIOChip.locateLine(named: "LED_BLUE", driver: driver) }
        #expect(error?.kind == .lineNotFound)
        #expect(error?.line == "LED_BLUE")
    }

    @Test("line info shows the consumer while requested")
    func lineInfoWhileRequested() throws {
        let chip = try GPIOChip.open("label:pinctrl-rp1", driver: driver)
        let request = try chip.requestInput(named: ["GPIO17"], consumer: "drift-test", activeLow: true)
        let info = try chip.lineInfo(offset: 17)
        #expect(info.isUsed && info.consumer == "drift-test" && info.isActiveLow && !info.isOutput)
        request.release()
        #expect(try !chip.lineInfo(offset: 17).isUsed)
    }

    @Test("a requested line is busy for a second request")
    func busyLine() throws {
        let chip = try GPIOChip.open("label:pinctrl-rp1", driver: driver)
        let first = try chip.requestInput(offsets: [5])
        let error = #expect(throws: GPIOError.self) { try chip.requestOutput(offsets: [4, 5]) }
        #expect(error?.kind == .lineBusy)
        #expect(error?.systemError?.errno == EBUSY)
        // All or nothing: line 4 was not taken by the failed request.
        #expect(try !chip.lineInfo(offset: 4).isUsed)
        first.release()
        _ = try chip.requestOutput(offsets: [4, 5])
    }

    @Test("bad offset lists are rejected before reaching the driver")
    func badOffsets() throws {
        let chip = try GPIOChip.open("label:pinctrl-rp1", driver: driver)
        let empty = #expect(throws: GPIOError.self) { try chip.requestInput(offsets: []) }
        #expect(empty?.kind == .invalidArgument)
        let duplicate = #expect(throws: GPIOError.self) { try chip.requestInput(offsets: [3, 3]) }
        #expect(duplicate?.kind == .invalidArgument)
        let outOfRange = #expect(throws: GPIOError.self) { try chip.requestInput(offsets: [2, 54]) }
        #expect(outOfRange?.kind == .lineNotFound)
        #expect(outOfRange?.line == "54")
        let tooMany = #expect(throws: GPIOError.self) { try chip.requestInput(offsets: Array(0..<65)) }
        #expect(tooMany?.kind == .invalidArgument)
        let values = #expect(throws: GPIOError.self) { try chip.requestOutput(offsets: [1, 2], initial: [true]) }
        #expect(values?.kind == .invalidArgument)
        let unknownName = #expect(throws: GPIOError.self) { try chip.requestInput(named: ["GPIO17", "NOPE"]) }
        #expect(unknownName?.kind == .lineNotFound)
        #expect(try !chip.lineInfo(offset: 17).isUsed)
    }

    @Test("requests outlive a closed chip; the closed chip refuses further calls")
    func closeChip() throws {
        let chip = try GPIOChip.open("label:pinctrl-rp1", driver: driver)
        let led = try chip.requestOutput(offsets: [22])
        chip.close()
        chip.close()
        try led.set(true)
        #expect(try driver.level(chip: "gpiochip0", offset: 22))
        let error = #expect(throws: GPIOError.self) { try chip.lineOffset(named: "GPIO22") }
        #expect(error?.kind == .released)
    }

    @Test("selectors parse prefixes and keep plain strings for fallback")
    func selectorParsing() {
        #expect(GPIOChipSelector(parsing: "label:pinctrl-rp1") == .label("pinctrl-rp1"))
        #expect(GPIOChipSelector(parsing: "name:gpiochip4") == .name("gpiochip4"))
        #expect(GPIOChipSelector(parsing: "path:/dev/gpiochip0") == .path("/dev/gpiochip0"))
        #expect(GPIOChipSelector(parsing: "pinctrl-rp1") == .any("pinctrl-rp1"))
        #expect(GPIOChipSelector(parsing: "label:x").description == "label:x")
        #expect(GPIOChipSelector(parsing: "/dev/gpiochip0").description == "/dev/gpiochip0")
    }

    @Test("errors describe operation, chip, line and errno")
    func errorDescription() {
        let error = GPIOError(errno: EBUSY, operation: "request input", chip: "gpiochip0", line: "17")
        #expect(error.kind == .lineBusy)
        #expect(error.description.contains("request input"))
        #expect(error.description.contains("gpiochip0"))
        #expect(error.description.contains("17"))
        #expect(error.description.contains("errno \(EBUSY)"))
        #expect(GPIOError(errno: ENODEV, operation: "read events").kind == .chipVanished)
        #expect(GPIOError(errno: ENODEV, operation: "open chip", opening: true).kind == .chipNotFound)
        #expect(GPIOError(errno: EACCES, operation: "open chip", opening: true).kind == .system)
    }
}
