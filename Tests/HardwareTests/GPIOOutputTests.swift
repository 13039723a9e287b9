import Hardware
import Testing

@Suite("GPIO outputs (simulated driver)")
struct GPIOOutputTests {
    let driver = makeSimulatedPiBoard()

    @Test("set and get drive the pin")
    func setAndGet() throws {
        let chip = try GPIOChip.open("label:gpio-expander", driver: driver)
        let led = try chip.requestOutput(named: ["LED_RED"], initial: [true])
        #expect(try driver.level(line: "LED_RED") == true)
        #expect(try led.get() == true)
        try led.set(false)
        #expect(try driver.level(line: "LED_RED") == false)
        #expect(try led.get() == false)
        #expect(try chip.line(named: "LED_RED").isOutput)
    }

    @Test("outputs start inactive unless told otherwise")
    func defaultInitial() throws {
        let led = try GPIOChip.open("gpiochip1", driver: driver).requestOutput(named: ["LED_GREEN"])
        #expect(try led.get() == false)
        #expect(try driver.level(line: "LED_GREEN") == false)
    }

    @Test("active-low outputs drive the pin low when set active")
    func activeLow() throws {
        let chip = try GPIOChip.open("label:gpio-expander", driver: driver)
        let led = try chip.requestOutput(named: ["LED_GREEN"], activeLow: true)
        #expect(try driver.level(line: "LED_GREEN") == true)
        try led.set(true)
        #expect(try driver.level(line: "LED_GREEN") == false)
        #expect(try led.get() == true)
    }

    @Test("several lines are set and read in request order")
    func multiLine() throws {
        let chip = try GPIOChip.open("label:pinctrl-rp1", driver: driver)
        let leds = try chip.requestOutput(offsets: [23, 24, 25], initial: [true, false, true])
        #expect(try leds.values() == [true, false, true])
        try leds.set([false, true, true])
        #expect(try [23, 24, 25].map { try driver.level(chip: "gpiochip0", offset: $0) } == [false, true, true])
        let single = #expect(throws: GPIOError.self) { try leds.set(true) }
        #expect(single?.kind == .invalidArgument)
        let count = #expect(throws: GPIOError.self) { try leds.set([true]) }
        #expect(count?.kind == .invalidArgument)
        let get = #expect(throws: GPIOError.self) { try leds.get() }
        #expect(get?.kind == .invalidArgument)
    }

    @Test("release frees the line, is idempotent, and later calls throw released")
    func release() throws {
        let chip = try GPIOChip.open("label:pinctrl-rp1", driver: driver)
        let led = try chip.requestOutput(offsets: [18], initial: [true])
        led.release()
        led.release()
        let error = #expect(throws: GPIOError.self) { try led.set(false) }
        #expect(error?.kind == .released)
        #expect(try !chip.lineInfo(offset: 18).isUsed)
        _ = try chip.requestInput(offsets: [18])
    }

    @Test("the outside world cannot drive a requested output")
    func driveOutputRejected() throws {
        let led = try GPIOChip.open("label:pinctrl-rp1", driver: driver).requestOutput(offsets: [21])
        let error = #expect(throws: GPIOError.self) { try driver.drive(chip: "gpiochip0", offset: 21, to: true) }
        #expect(error?.kind == .invalidArgument)
        _ = led
    }

    @Test("a vanished chip fails outputs with chipVanished")
    func vanished() throws {
        let led = try GPIOChip.open("label:gpio-expander", driver: driver).requestOutput(named: ["LED_RED"])
        try driver.removeChip(named: "gpiochip1")
        let error = #expect(throws: GPIOError.self) { try led.set(true) }
        #expect(error?.kind == .chipVanished)
        let missing = #expect(throws: GPIOError.self) { try driver.level(line: "LED_RED") }
        #expect(missing?.kind == .lineNotFound)
    }
}
