import CDriftSys
import DriftSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// termios configuration shared by the serial backends.
enum SerialTerminalAttributes {
    /// The termios speed constant (`B9600`…) for a supported baud rate.
    static func speed(for baudRate: Int) -> speed_t? {
        switch baudRate {
        case 1200: return speed_t(B1200)
        case 1800: return speed_t(B1800)
        case 2400: return speed_t(B2400)
        case 4800: return speed_t(B4800)
        case 9600: return speed_t(B9600)
        case 19200: return speed_t(B19200)
        case 38400: return speed_t(B38400)
        case 57600: return speed_t(B57600)
        case 115_200: return speed_t(B115200)
        case 230_400: return speed_t(B230400)
        #if os(Linux)
        case 460_800: return speed_t(B460800)
        case 500_000: return speed_t(B500000)
        case 576_000: return speed_t(B576000)
        case 921_600: return speed_t(B921600)
        #endif
        default: return nil
        }
    }

    static func get(_ descriptor: FileDescriptor, path: String) throws(SerialError) -> termios {
        var attributes = termios()
        do {
            try Syscall.retryingEINTR("tcgetattr", subject: path) { tcgetattr(descriptor.rawValue, &attributes) }
        } catch {
            throw SerialError.opening(error, path: path)
        }
        return attributes
    }

    static func set(_ attributes: termios, on descriptor: FileDescriptor, path: String) throws(SerialError) {
        var attributes = attributes
        do {
            try Syscall.retryingEINTR("tcsetattr", subject: path) { tcsetattr(descriptor.rawValue, TCSANOW, &attributes) }
        } catch {
            throw SerialError.opening(error, path: path)
        }
    }

    /// Full configuration for the termios backend: ``rawAttributes(from:settings:)``
    /// applied with `tcsetattr`, then checked that the speed took.
    static func configure(_ descriptor: FileDescriptor, settings: SerialSettings, path: String) throws(SerialError) {
        try settings.validate(path: path)
        guard let speed = speed(for: settings.baudRate) else {
            throw .unsupportedBaud(path: path, baudRate: settings.baudRate)
        }
        let current = try get(descriptor, path: path)
        guard let attributes = rawAttributes(from: current, settings: settings) else {
            throw .unsupportedBaud(path: path, baudRate: settings.baudRate)
        }
        try set(attributes, on: descriptor, path: path)

        // tcsetattr succeeds if any change was applied; check the speed took.
        var applied = try get(descriptor, path: path)
        if cfgetospeed(&applied) != speed {
            throw .notSupported(path: path, reason: "the driver did not accept \(settings.baudRate) baud")
        }
    }

    /// `base` turned into raw mode (cfmakeraw) with the framing and speed of
    /// `settings`: receiver on, modem lines ignored, no hang-up on close, no
    /// software flow control, VMIN=1/VTIME=0. `nil` for an unsupported baud rate.
    ///
    /// VMIN must not be 0: with VMIN=0 and VTIME=0 a tty read returns 0 when
    /// empty even on a non-blocking descriptor, which is indistinguishable from
    /// a hang-up. With VMIN=1 an empty non-blocking read is `EAGAIN` and 0 means hung up.
    static func rawAttributes(from base: termios, settings: SerialSettings) -> termios? {
        guard let speed = speed(for: settings.baudRate) else { return nil }
        var attributes = base
        cfmakeraw(&attributes)
        attributes.c_iflag &= ~flags(IXON, IXOFF, IXANY, INPCK, PARMRK, ISTRIP, IGNBRK, BRKINT, ICRNL, INLCR, IGNCR)
        attributes.c_oflag &= ~flags(OPOST, ONLCR, OCRNL)
        attributes.c_lflag &= ~flags(ECHO, ECHONL, ICANON, ISIG, IEXTEN)

        attributes.c_cflag &= ~flags(CSIZE, PARENB, PARODD, CSTOPB, CRTSCTS, HUPCL)
        attributes.c_cflag |= flags(CLOCAL, CREAD)
        switch settings.dataBits {
        case .five: attributes.c_cflag |= flags(CS5)
        case .six: attributes.c_cflag |= flags(CS6)
        case .seven: attributes.c_cflag |= flags(CS7)
        case .eight: attributes.c_cflag |= flags(CS8)
        }
        switch settings.parity {
        case .none: break
        case .odd: attributes.c_cflag |= flags(PARENB, PARODD)
        case .even: attributes.c_cflag |= flags(PARENB)
        }
        if settings.stopBits == .two { attributes.c_cflag |= flags(CSTOPB) }
        if settings.flowControl == .rtsCts { attributes.c_cflag |= flags(CRTSCTS) }
        setReadTimeouts(&attributes)

        guard cfsetispeed(&attributes, speed) == 0, cfsetospeed(&attributes, speed) == 0 else { return nil }
        return attributes
    }

    /// For the libserialport backend, after its `sp_set_*` calls: make sure no
    /// input/output/line processing is left on (libserialport clears most of it)
    /// and set VMIN=1/VTIME=0 instead of libserialport's VMIN=0 (see ``configure(_:settings:path:)``).
    /// Leaves speed, framing and flow control as libserialport set them.
    static func makeRawReads(_ descriptor: FileDescriptor, path: String) throws(SerialError) {
        var attributes = try get(descriptor, path: path)
        attributes.c_iflag &= ~flags(IXON, IXOFF, IXANY, PARMRK, ISTRIP, IGNBRK, BRKINT, ICRNL, INLCR, IGNCR)
        attributes.c_oflag &= ~flags(OPOST, ONLCR, OCRNL)
        attributes.c_lflag &= ~flags(ECHO, ECHONL, ICANON, ISIG, IEXTEN)
        attributes.c_cflag |= flags(CLOCAL, CREAD)
        setReadTimeouts(&attributes)
        try set(attributes, on: descriptor, path: path)
    }

    /// The bitwise OR of termios flag constants (kept out of long expressions for the type checker).
    private static func flags(_ values: any BinaryInteger...) -> tcflag_t {
        var result: tcflag_t = 0
        for value in values { result |= tcflag_t(truncatingIfNeeded: value) }
        return result
    }

    private static func setReadTimeouts(_ attributes: inout termios) {
        withUnsafeMutableBytes(of: &attributes.c_cc) { controlCharacters in
            controlCharacters[Int(VMIN)] = 1
            controlCharacters[Int(VTIME)] = 0
        }
    }
}
