import Foundation
import Hardware
import Testing

@Suite("Serial settings")
struct SerialSettingsTests {
    @Test("the default is 9600 8N1 without flow control")
    func defaults() {
        let settings = SerialSettings()
        #expect(settings.baudRate == 9600)
        #expect(settings.dataBits == .eight && settings.parity == .none && settings.stopBits == .one)
        #expect(settings.flowControl == .none)
        #expect(settings.description == "9600 8N1")
        #expect(settings.bitsPerCharacter == 10)
    }

    @Test("every common rate from 1200 to 921600 validates", arguments: SerialSettings.supportedBaudRates)
    func supportedRates(baudRate: Int) throws {
        try SerialSettings(baudRate: baudRate).validate(path: "/dev/ttyX")
    }

    @Test("other rates are rejected with the path and the rate", arguments: [0, 110, 300, 600, 14400, 128_000, 1_000_000, 3_000_000, -1])
    func unsupportedRates(baudRate: Int) {
        #expect(throws: SerialError.unsupportedBaud(path: "/dev/ttyX", baudRate: baudRate)) {
            try SerialSettings(baudRate: baudRate).validate(path: "/dev/ttyX")
        }
    }

    @Test("framing description and bits per character")
    func framing() {
        let settings = SerialSettings(baudRate: 115_200, dataBits: .seven, parity: .even, stopBits: .two, flowControl: .rtsCts)
        #expect(settings.description == "115200 7E2 rts-cts")
        #expect(settings.bitsPerCharacter == 11)
        #expect(SerialSettings(baudRate: 4800, parity: .odd).description == "4800 8O1")
    }

    @Test("settings round-trip through JSON")
    func codable() throws {
        let settings = SerialSettings(baudRate: 57600, dataBits: .seven, parity: .odd, stopBits: .two, flowControl: .rtsCts)
        let decoded = try JSONDecoder().decode(SerialSettings.self, from: JSONEncoder().encode(settings))
        #expect(decoded == settings)
    }

    @Test("errors name the path they are about")
    func errorDescriptions() {
        let errors: [SerialError] = [
            .notFound(path: "/dev/a"), .permissionDenied(path: "/dev/a"), .busy(path: "/dev/a"),
            .notATerminal(path: "/dev/a"), .unsupportedBaud(path: "/dev/a", baudRate: 5),
            .notSupported(path: "/dev/a", reason: "r"), .disconnected(path: "/dev/a"),
            .timeout(path: "/dev/a", operation: "write"), .closed(path: "/dev/a"),
        ]
        for error in errors {
            #expect(error.path == "/dev/a")
            #expect(error.description.contains("/dev/a"))
        }
    }
}
