/// A `HOST:PORT` or `[IPv6]:PORT` address from the configuration (listen or peer address).
///
/// `host` is kept as written (without the brackets for IPv6); it is not resolved here.
public struct HostPort: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// True when `host` is an IPv6 literal (it contains a colon).
    public var isIPv6: Bool { host.contains(":") }

    /// `host:port`, or `[host]:port` for IPv6 — the form accepted by ``parse(_:)``.
    public var description: String {
        isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Why a text is not a valid address.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var input: String
        public var reason: String
        public var description: String { "`\(input)` is not HOST:PORT: \(reason)" }
    }

    /// Parses `HOST:PORT` or `[v6]:PORT` with a port in 1–65535 (0 too when `allowsAnyPort`:
    /// the system picks a free one).
    public static func parse(_ text: String, allowsAnyPort: Bool = false) throws(ParseError) -> HostPort {
        func fail(_ reason: String) -> ParseError { ParseError(input: text, reason: reason) }
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw fail("missing `]` after the IPv6 address") }
            host = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw fail("expected `:PORT` after `]`") }
            portText = rest.dropFirst()
            guard host.contains(":"), host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." || $0 == "%" })
            else { throw fail("`\(host)` is not an IPv6 address") }
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw fail("missing `:PORT`") }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") {
                throw fail("an IPv6 address needs brackets, e.g. `[::1]:8080`")
            }
            guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_") })
            else { throw fail("`\(host)` is not a host name or IPv4 address") }
        }
        guard !host.isEmpty else { throw fail("the host is empty (use 0.0.0.0 for every interface)") }
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }), portText.count <= 5,
              let port = Int(portText), ((allowsAnyPort ? 0 : 1)...65535).contains(port)
        else { throw fail(allowsAnyPort ? "the port must be a number from 0 (any free port) to 65535" : "the port must be a number from 1 to 65535") }
        return HostPort(host: String(host), port: port)
    }
}
