import DriftSystem
import Hardware
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("GPIO inputs and edge events (simulated driver)")
struct GPIOInputTests {
    let driver = makeSimulatedPiBoard()

    @Test("driven edges arrive in order with their timestamps")
    func edgesInOrder() async throws {
        let chip = try GPIOChip.open("label:pinctrl-rp1", driver: driver)
        let request = try chip.requestInput(named: ["GPIO17"], bias: .pullDown)
        let reader = Task { try await collectEvents(4, from: request) }
        try driver.drive(chip: "gpiochip0", offset: 17, to: true, at: .milliseconds(100))
        try driver.drive(chip: "gpiochip0", offset: 17, to: false, at: .milliseconds(150))
        try driver.drive(chip: "gpiochip0", offset: 17, to: false, at: .milliseconds(160)) // no change, no edge
        try driver.drive(chip: "gpiochip0", offset: 17, to: true, at: .milliseconds(200))
        try driver.drive(line: "GPIO17", to: nil, at: .milliseconds(250)) // floats back to the pull-down
        let events = try await gpioAwait(reader)
        #expect(events == [
            GPIOEdgeEvent(offset: 17, edge: .rising, timestamp: .milliseconds(100)),
            GPIOEdgeEvent(offset: 17, edge: .falling, timestamp: .milliseconds(150)),
            GPIOEdgeEvent(offset: 17, edge: .rising, timestamp: .milliseconds(200)),
            GPIOEdgeEvent(offset: 17, edge: .falling, timestamp: .milliseconds(250)),
        ])
    }

    @Test("edges that happened before iteration started are not lost")
    func bufferedEdges() async throws {
        let chip = try GPIOChip.open("gpiochip1", driver: driver)
        let request = try chip.requestInput(named: ["BUTTON_A"])
        try driver.drive(line: "BUTTON_A", to: true, at: .seconds(1))
        try driver.drive(line: "BUTTON_A", to: false, at: .seconds(2))
        let events = try await gpioAwait(Task { try await collectEvents(2, from: request) })
        #expect(events.map(\.edge) == [.rising, .falling])
        #expect(events.map(\.timestamp) == [.seconds(1), .seconds(2)])
    }

    @Test("active-low with pull-up: an open button reads inactive, pressing it is a rising edge")
    func activeLowButton() async throws {
        let chip = try GPIOChip.open("label:pinctrl-rp1", driver: driver)
        let button = try chip.requestInput(named: ["GPIO27"], bias: .pullUp, activeLow: true)
        #expect(try button.value() == false)
        #expect(try driver.level(line: "GPIO27") == true)
        try driver.drive(line: "GPIO27", to: false, at: .milliseconds(5)) // pressed: shorted to ground
        #expect(try button.value() == true)
        let events = try await gpioAwait(Task { try await collectEvents(1, from: button) })
        #expect(events == [GPIOEdgeEvent(offset: 27, edge: .rising, timestamp: .milliseconds(5))])
    }

    @Test("several lines in one request report their offsets and values in request order")
    func multiLine() async throws {
        let chip = try GPIOChip.open("label:pinctrl-rp1", driver: driver)
        let request = try chip.requestInput(offsets: [6, 5, 26], bias: .pullDown)
        try driver.drive(chip: "gpiochip0", offset: 26, to: true, at: .seconds(1))
        try driver.drive(chip: "gpiochip0", offset: 6, to: true, at: .seconds(2))
        #expect(try request.values() == [true, false, true])
        let single = #expect(throws: GPIOError.self) { try request.value() }
        #expect(single?.kind == .invalidArgument)
        let events = try await gpioAwait(Task { try await collectEvents(2, from: request) })
        #expect(events.map(\.offset) == [26, 6])
    }

    @Test("edges without an explicit time are stamped from the driver's clock")
    func clockTimestamps() async throws {
        let driver = makeSimulatedPiBoard(now: { .seconds(42) })
        let request = try GPIOChip.open("label:pinctrl-rp1", driver: driver).requestInput(offsets: [3])
        try driver.drive(chip: "gpiochip0", offset: 3, to: true)
        let events = try await gpioAwait(Task { try await collectEvents(1, from: request) })
        #expect(events.first?.timestamp == .seconds(42))
    }

    @Test("cancelling the iterating task ends the sequence")
    func cancellationEndsSequence() async throws {
        let request = try GPIOChip.open("label:pinctrl-rp1", driver: driver).requestInput(offsets: [12])
        let firstEvent = GPIOTestGate()
        let reader = Task { () async throws -> Int in
            var count = 0
            for try await _ in request.events() {
                count += 1
                firstEvent.open()
            }
            return count
        }
        // Once the reader has seen an event it is iterating; cancel it while it waits for the next.
        try driver.drive(chip: "gpiochip0", offset: 12, to: true, at: .seconds(1))
        await firstEvent.wait()
        reader.cancel()
        #expect(try await gpioAwait(reader) == 1)
        // The request itself is still usable after its sequence ended.
        #expect(try request.value() == true)
    }

    @Test("cancelling before the first wait ends the sequence too")
    func cancelledBeforeIterating() async throws {
        let request = try GPIOChip.open("label:pinctrl-rp1", driver: driver).requestInput(offsets: [13])
        let reader = Task { () async throws -> [GPIOEdgeEvent] in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await collectEvents(1, from: request)
        }
        #expect(try await gpioAwait(reader).isEmpty)
    }

    @Test("release ends a waiting sequence, is idempotent, and later calls throw released")
    func releaseEndsSequence() async throws {
        let chip = try GPIOChip.open("label:pinctrl-rp1", driver: driver)
        let request = try chip.requestInput(offsets: [16])
        let firstEvent = GPIOTestGate()
        let reader = Task { () async throws -> Int in
            var count = 0
            for try await _ in request.events() {
                count += 1
                firstEvent.open()
            }
            return count
        }
        try driver.drive(chip: "gpiochip0", offset: 16, to: true, at: .seconds(1))
        await firstEvent.wait()
        request.release()
        request.release()
        #expect(try await gpioAwait(reader) == 1)
        let error = #expect(throws: GPIOError.self) { try request.value() }
        #expect(error?.kind == .released)
        #expect(try !chip.lineInfo(offset: 16).isUsed)
        // A sequence made after release ends at once.
        #expect(try await gpioAwait(Task { try await collectEvents(1, from: request) }).isEmpty)
    }

    @Test("a vanished chip fails the sequence and later calls with chipVanished")
    func chipVanishes() async throws {
        let chip = try GPIOChip.open("label:gpio-expander", driver: driver)
        let request = try chip.requestInput(named: ["BUTTON_A"])
        let reader = Task { try await collectEvents(5, from: request) }
        try await Task.sleep(for: .milliseconds(20)) // usually waiting by now; either way must throw
        try driver.removeChip(named: "gpiochip1")
        let failure = await #expect(throws: GPIOError.self) { try await gpioAwait(reader) }
        #expect(failure?.kind == .chipVanished)
        #expect(failure?.systemError?.errno == ENODEV)
        let value = #expect(throws: GPIOError.self) { try request.value() }
        #expect(value?.kind == .chipVanished)
        let info = #expect(throws: GPIOError.self) { try chip.lineOffset(named: "BUTTON_A") }
        #expect(info?.kind == .chipVanished)
        let reopen = #expect(throws: GPIOError.self) { try GPIOChip.open("label:gpio-expander", driver: driver) }
        #expect(reopen?.kind == .chipNotFound)
        #expect(try GPIOChip.chips(driver: driver).map(\.name) == ["gpiochip0"])
        request.release() // still fine after the chip is gone
    }

    @Test("dropping the last reference releases the lines")
    func deinitReleases() throws {
        let chip = try GPIOChip.open("label:pinctrl-rp1", driver: driver)
        do {
            let request = try chip.requestInput(offsets: [20])
            #expect(try chip.lineInfo(offset: 20).isUsed)
            _ = request
        }
        #expect(try !chip.lineInfo(offset: 20).isUsed)
        _ = try chip.requestInput(offsets: [20])
    }

    @Test("the event descriptor is a real fd that polls readable exactly while events are pending")
    func realEventDescriptor() throws {
        let handle = try driver.openChip(label: "pinctrl-rp1")
        let request = try handle.requestInput(offsets: [9], consumer: "test", bias: .asIs, activeLow: false)
        defer { request.release() }
        let fd = try #require(request.eventDescriptor)
        #expect(try fd.poll(events: Int16(POLLIN), timeoutMilliseconds: 0) == 0)
        try driver.drive(chip: "gpiochip0", offset: 9, to: true, at: .seconds(1))
        try driver.drive(chip: "gpiochip0", offset: 9, to: false, at: .seconds(2))
        #expect(try fd.poll(events: Int16(POLLIN), timeoutMilliseconds: 0) & Int16(POLLIN) != 0)
        #expect(try request.readEvents(maxCount: 1).map(\.edge) == [.rising])
        #expect(try fd.poll(events: Int16(POLLIN), timeoutMilliseconds: 0) & Int16(POLLIN) != 0)
        #expect(try request.readEvents(maxCount: 8).map(\.edge) == [.falling])
        #expect(try fd.poll(events: Int16(POLLIN), timeoutMilliseconds: 0) == 0)
        #expect(try request.readEvents(maxCount: 8).isEmpty)
    }

    @Test("edges beyond the queue limit are dropped and counted")
    func queueOverflow() throws {
        let request = try GPIOChip.open("label:pinctrl-rp1", driver: driver).requestInput(offsets: [2])
        for step in 0..<1_030 {
            try driver.drive(chip: "gpiochip0", offset: 2, to: step % 2 == 0, at: .milliseconds(step))
        }
        #expect(driver.droppedEvents == 6)
        _ = request
    }
}
