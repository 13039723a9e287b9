extension DriftConfiguration {
    /// `[gpio]`: which GPIO chip the lines below are on.
    public struct GPIO: Sendable, Equatable {
        public var backend: GPIOBackend
        /// Chip label (`pinctrl-bcm2711`), name (`gpiochip0`) or path (`/dev/gpiochip0`). Prefer labels.
        public var chip: String
        /// The line names the board's chip offers (its profile lists them); every button, LED,
        /// rain and E22 line must be one of them. Empty: not checked (a board without a list).
        public var lines: [String]

        init(reading r: SectionReader) {
            backend = r.choice("backend")
            chip = r.string("chip") { $0.isEmpty ? ValueProblem("must not be empty") : nil }
            lines = r.stringArray("lines", default: [], check: ConfigChecks.lineName)
        }
    }

    /// `[buttons]`: button line names (`""` = not fitted) and timing.
    public struct Buttons: Sendable, Equatable {
        public var presence: String
        public var keepAlive: String
        public var debounce: Duration
        public var longPress: Duration
        /// The built-in mapping this board starts from.
        public var mapping: ButtonMappingPreset
        /// Per-gesture actions replacing the preset's, by gesture (`presence.long`, `keep-alive+presence`).
        public var overrides: [String: ButtonActionName]

        init(reading r: SectionReader) {
            presence = r.string("presence", default: "", check: ConfigChecks.lineName)
            keepAlive = r.string("keep_alive", default: "", check: ConfigChecks.lineName)
            debounce = .milliseconds(r.int("debounce_ms", default: 30, min: 1, max: 500))
            longPress = .milliseconds(r.int("long_press_ms", default: 2000, min: 300, max: 10_000))
            (mapping, overrides) = Self.readMapping(r)
        }
    }

    /// `[leds]`: LED line names (`""` = not fitted).
    public struct LEDs: Sendable, Equatable {
        public var status: String
        public var bottle: String
        public var radio: String
        public var gps: String
        /// Drive a fitted LED through the kernel LED `drift-<role>` (`/sys/class/leds`, declared
        /// by the board's `gpio-led` overlay) when there is one, so that the kernel blinks it;
        /// otherwise, or when `false`, through its GPIO line.
        public var kernelLEDs: Bool

        init(reading r: SectionReader) {
            status = r.string("status", default: "", check: ConfigChecks.lineName)
            bottle = r.string("bottle", default: "", check: ConfigChecks.lineName)
            radio = r.string("radio", default: "", check: ConfigChecks.lineName)
            gps = r.string("gps", default: "", check: ConfigChecks.lineName)
            kernelLEDs = r.bool("kernel_leds", default: true)
        }
    }

    /// `[rain]`: tipping-bucket rain gauge.
    public struct Rain: Sendable, Equatable {
        /// Line name of the reed switch; `""` = not fitted.
        public var line: String
        public var mmPerTip: Double

        init(reading r: SectionReader) {
            line = r.string("line", default: "", check: ConfigChecks.lineName)
            mmPerTip = r.double("mm_per_tip", default: 0.2794, above: 0)
        }
    }

    /// `[i2c]`: the I2C bus and the BME280 on it.
    public struct I2C: Sendable, Equatable {
        /// `/dev/i2c-1`, or `sim`; `""` = no I2C bus.
        public var bus: String
        /// 0x76 or 0x77.
        public var bme280Address: Int
        public var bme280: Bool
        /// How often the BME280 is read.
        public var sampleInterval: Duration

        init(reading r: SectionReader) {
            bus = r.string("bus", default: "") { $0.isEmpty ? nil : ConfigChecks.devicePath($0, keywords: ["sim"]) }
            bme280Address = r.int("bme280_address", default: 0x76) { value in
                value == 0x76 || value == 0x77
                    ? nil : ValueProblem("must be 0x76 or 0x77, found 0x\(String(value, radix: 16))")
            }
            bme280 = r.bool("bme280", default: false)
            sampleInterval = .seconds(r.int("sample_interval_s", default: 30, min: 1, max: 3600))
        }
    }

    /// `[onewire]`: DS18B20 temperature probes on the kernel's 1-Wire bus.
    public struct OneWire: Sendable, Equatable {
        public var ds18b20: Bool
        public var devicesDir: String

        init(reading r: SectionReader) {
            ds18b20 = r.bool("ds18b20", default: false)
            devicesDir = r.string("devices_dir", default: "/sys/bus/w1/devices", check: ConfigChecks.path)
        }
    }
}
