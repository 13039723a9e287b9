import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A throwaway PKI for TLS tests, made with the `openssl` command in `directory`: a CA, a
/// server certificate for 127.0.0.1/localhost and a client certificate signed by it, and a
/// second CA that signed neither (a box configured with the wrong CA file).
///
/// EC P-256 keys, valid for two days: generating all of it takes well under a second.
public struct TestCertificates: Sendable {
    public static let openssl = "/usr/bin/openssl"
    public static var available: Bool { FileManager.default.isExecutableFile(atPath: openssl) }

    public let caFile: String
    public let serverCertFile: String
    public let serverKeyFile: String
    public let clientCertFile: String
    public let clientKeyFile: String
    /// A CA that signed nothing here.
    public let otherCAFile: String

    /// Writes the files into `directory` (readable by everyone: a broker that drops its
    /// privileges must still read them).
    public init(in directory: TemporaryDirectory) throws {
        func path(_ name: String) -> String { directory.appending(name) }
        caFile = path("ca.crt")
        serverCertFile = path("server.crt")
        serverKeyFile = path("server.key")
        clientCertFile = path("client.crt")
        clientKeyFile = path("client.key")
        otherCAFile = path("other-ca.crt")
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Self.run(["req", "-x509"] + key + ["-keyout", path("ca.key"), "-out", caFile, "-days", "2",
                                               "-subj", "/CN=Drift Box test CA"])
        try Self.run(["req", "-x509"] + key + ["-keyout", path("other-ca.key"), "-out", otherCAFile, "-days", "2",
                                               "-subj", "/CN=Some other CA"])
        let extensions = path("server.ext")
        try "subjectAltName = IP:127.0.0.1, DNS:localhost\n".write(toFile: extensions, atomically: true, encoding: .utf8)
        for (name, subject, ext) in [("server", "/CN=127.0.0.1", extensions as String?), ("client", "/CN=drift-box-gateway", nil)] {
            try Self.run(["req"] + key + ["-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", subject])
            try Self.run(["x509", "-req", "-in", path("\(name).csr"), "-CA", caFile, "-CAkey", path("ca.key"),
                          "-CAcreateserial", "-out", path("\(name).crt"), "-days", "2"]
                         + (ext.map { ["-extfile", $0] } ?? []))
        }
        chmod(directory.path, 0o755)  // TemporaryDirectory makes it 0700; the broker's user must enter it
        for file in (try FileManager.default.contentsOfDirectory(atPath: directory.path)) {
            chmod(path(file), 0o644)
        }
    }

    private static func run(_ arguments: [String]) throws {
        try runTool(openssl, arguments)
    }
}
