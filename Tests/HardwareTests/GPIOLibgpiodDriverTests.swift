import DriftSystem
import Hardware
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real libgpiod driver, on a machine that may have no GPIO at all
/// (this build host's kernel has CONFIG_GPIOLIB off): it must fail cleanly.
@Suite("libgpiod driver on this machine")
struct GPIOLibgpiodDriverTests {
    let driver = LibgpiodDriver()

    /// True when the kernel exposes at least one GPIO chip here.
    static var hasChips: Bool {
        (0..<64).contains { access("/dev/gpiochip\($0)", F_OK) == 0 }
    }

    @Test("reports the libgpiod API it was built against")
    func apiVersion() {
        #expect([1, 2].contains(LibgpiodDriver.apiVersion))
        #expect(!LibgpiodDriver.libraryVersion.isEmpty)
        #expect(driver.backendDescription.hasPrefix("libgpiod v\(LibgpiodDriver.apiVersion)"))
    }

    @Test("enumeration succeeds, and is empty without GPIO chips")
    func enumerate() throws {
        let chips = try GPIOChip.chips(driver: driver)
        if !Self.hasChips {
            #expect(chips.isEmpty)
        }
        for chip in chips {
            #expect(chip.path.hasPrefix("/dev/") && chip.lineCount >= 0)
        }
    }

    @Test("a missing chip path is chipNotFound with ENOENT")
    func missingPath() {
        let error = #expect(throws: GPIOError.self) { try GPIOChip.open("/dev/gpiochip-drift-missing", driver: driver) }
        #expect(error?.kind == .chipNotFound)
        #expect(error?.chip == "/dev/gpiochip-drift-missing")
        let direct = #expect(throws: GPIOError.self) { try driver.openChip(path: "/dev/gpiochip-drift-missing") }
        #expect(direct?.systemError?.errno == ENOENT)
    }

    @Test("a path that is not a GPIO chip is refused without crashing")
    func notAChip() {
        let error = #expect(throws: GPIOError.self) { try driver.openChip(path: "/dev/null") }
        #expect(error?.kind == .chipNotFound)
        #expect(error?.systemError != nil)
    }

    @Test("missing names and labels are chipNotFound; a name with a slash is invalid")
    func missingNameAndLabel() {
        let name = #expect(throws: GPIOError.self) { try driver.openChip(name: "gpiochip-drift-missing") }
        #expect(name?.kind == .chipNotFound)
        let label = #expect(throws: GPIOError.self) { try driver.openChip(label: "drift-no-such-label") }
        #expect(label?.kind == .chipNotFound)
        let slash = #expect(throws: GPIOError.self) { try driver.openChip(name: "../null") }
        #expect(slash?.kind == .invalidArgument)
    }

    @Test("a board profile's header chip and line are not found on a machine without GPIO")
    func boardLookups() throws {
        guard !Self.hasChips else {
            print("skip: this machine has GPIO chips; the not-found path is covered by the simulated driver")
            return
        }
        let chip = #expect(throws: GPIOError.self) { try GPIOChip.open("label:pinctrl-rp1") }
        #expect(chip?.kind == .chipNotFound)
        let plain = #expect(throws: GPIOError.self) { try GPIOChip.open("gpiochip0") }
        #expect(plain?.kind == .chipNotFound)
        let line = #expect(throws: GPIOError.self) { try GPIOChip.locateLine(named: "GPIO17") }
        #expect(line?.kind == .lineNotFound)
    }
}
