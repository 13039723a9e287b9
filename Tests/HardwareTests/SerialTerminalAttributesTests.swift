import CDriftSys
@testable import Hardware
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The termios the termios backend applies, checked on the struct itself
/// (a pty normalises CSIZE and PARENB, so those cannot be seen through one).
@Suite("Serial termios attributes")
struct SerialTerminalAttributesTests {
    /// A cooked terminal as the kernel sets up a new tty (`tty_std_termios`).
    func cooked() -> termios {
        var attributes = termios()
        attributes.c_iflag = tcflag_t(ICRNL | IXON | IXANY | BRKINT)
        attributes.c_oflag = tcflag_t(OPOST | ONLCR)
        attributes.c_cflag = tcflag_t(CS8 | CREAD | HUPCL)
        attributes.c_lflag = tcflag_t(ISIG | ICANON | ECHO | ECHOE | IEXTEN)
        withUnsafeMutableBytes(of: &attributes.c_cc) { $0[Int(VMIN)] = 0 }
        return attributes
    }

    func cflag(_ attributes: termios, _ mask: some BinaryInteger) -> tcflag_t {
        attributes.c_cflag & tcflag_t(truncatingIfNeeded: mask)
    }

    @Test("data bits", arguments: SerialSettings.DataBits.allCases)
    func dataBits(bits: SerialSettings.DataBits) throws {
        let attributes = try #require(SerialTerminalAttributes.rawAttributes(from: cooked(), settings: SerialSettings(dataBits: bits)))
        let expected: Int32
        switch bits {
        case .five: expected = CS5
        case .six: expected = CS6
        case .seven: expected = CS7
        case .eight: expected = CS8
        }
        #expect(cflag(attributes, CSIZE) == tcflag_t(expected))
    }

    @Test("parity and stop bits")
    func parityAndStopBits() throws {
        let even = try #require(SerialTerminalAttributes.rawAttributes(from: cooked(), settings: SerialSettings(parity: .even, stopBits: .two)))
        #expect(cflag(even, PARENB) != 0 && cflag(even, PARODD) == 0 && cflag(even, CSTOPB) != 0)
        let odd = try #require(SerialTerminalAttributes.rawAttributes(from: cooked(), settings: SerialSettings(parity: .odd)))
        #expect(cflag(odd, PARENB) != 0 && cflag(odd, PARODD) != 0 && cflag(odd, CSTOPB) == 0)
        let none = try #require(SerialTerminalAttributes.rawAttributes(from: even, settings: SerialSettings()))
        #expect(cflag(none, PARENB | PARODD | CSTOPB) == 0)
    }

    @Test("flow control: RTS/CTS on or off, never XON/XOFF")
    func flowControl() throws {
        let hardware = try #require(SerialTerminalAttributes.rawAttributes(from: cooked(), settings: SerialSettings(flowControl: .rtsCts)))
        #expect(cflag(hardware, CRTSCTS) != 0)
        let none = try #require(SerialTerminalAttributes.rawAttributes(from: hardware, settings: SerialSettings()))
        #expect(cflag(none, CRTSCTS) == 0)
        #expect(none.c_iflag & tcflag_t(IXON | IXOFF | IXANY) == 0)
    }

    @Test("raw: no processing, receiver on, modem lines ignored, no hang-up on close, VMIN 1")
    func raw() throws {
        var attributes = try #require(SerialTerminalAttributes.rawAttributes(from: cooked(), settings: SerialSettings(baudRate: 57600)))
        #expect(attributes.c_lflag & tcflag_t(ECHO | ICANON | ISIG | IEXTEN) == 0)
        #expect(attributes.c_iflag & tcflag_t(ICRNL | BRKINT | ISTRIP) == 0)
        #expect(attributes.c_oflag & tcflag_t(OPOST) == 0)
        #expect(cflag(attributes, CLOCAL | CREAD) == tcflag_t(CLOCAL | CREAD))
        #expect(cflag(attributes, HUPCL) == 0)
        #expect(withUnsafeBytes(of: attributes.c_cc) { $0[Int(VMIN)] } == 1)
        #expect(withUnsafeBytes(of: attributes.c_cc) { $0[Int(VTIME)] } == 0)
        #expect(cfgetospeed(&attributes) == speed_t(B57600))
        #expect(cfgetispeed(&attributes) == speed_t(B57600))
    }

    @Test("every supported rate has a termios speed; others have none")
    func speeds() {
        for rate in SerialSettings.supportedBaudRates {
            #expect(SerialTerminalAttributes.speed(for: rate) != nil, "\(rate)")
        }
        #expect(SerialTerminalAttributes.speed(for: 12345) == nil)
        #expect(SerialTerminalAttributes.rawAttributes(from: cooked(), settings: SerialSettings(baudRate: 300)) == nil)
    }
}
