extension DriftConfiguration {
    /// `[mqtt]`: a gateway box bridges its mesh to other meshes over an MQTT broker and
    /// publishes telemetry (`docs/mqtt.md`). Off by default.
    public struct MQTT: Sendable, Equatable {
        public var enabled: Bool
        public var host: String
        public var port: Int
        public var tls: Bool
        /// With ``tls``: the CA certificate file; client certificate and key are optional (both or neither).
        public var caFile: String
        public var certFile: String
        public var keyFile: String
        /// `""` = no username/password.
        public var username: String
        public var password: String
        /// A file whose first line is the password (instead of ``password``).
        public var passwordFile: String
        /// First topic level; fleets sharing a broker use different prefixes.
        public var topicPrefix: String
        /// `""` = the box id.
        public var clientID: String
        public var keepaliveSeconds: Int
        /// Messages kept in SQLite while the broker is unreachable; the oldest are dropped (and counted) beyond.
        public var queueLimit: Int
        public var telemetryIntervalSeconds: Int

        init(reading r: SectionReader) {
            enabled = r.bool("enabled", default: false)
            host = r.string("host", default: "127.0.0.1")
            port = r.int("port", default: 1883, min: 1, max: 65_535)
            tls = r.bool("tls", default: false)
            caFile = r.string("ca_file", default: "")
            certFile = r.string("cert_file", default: "")
            keyFile = r.string("key_file", default: "")
            username = r.string("username", default: "")
            password = r.string("password", default: "")
            passwordFile = r.string("password_file", default: "")
            topicPrefix = r.string("topic_prefix", default: "driftbox") { Self.topicLevelsProblem($0) }
            clientID = r.string("client_id", default: "") { id in
                id.utf8.count > 64 ? ValueProblem("a client id has at most 64 bytes, found \(id.utf8.count)") : nil
            }
            keepaliveSeconds = r.int("keepalive_s", default: 30, min: 5, max: 3_600)
            queueLimit = r.int("queue_limit", default: 5_000, min: 10, max: 1_000_000)
            telemetryIntervalSeconds = r.int("telemetry_interval_s", default: 60, min: 5, max: 86_400)
        }

        /// A topic prefix: one or more non-empty levels without MQTT wildcards or NUL.
        static func topicLevelsProblem(_ prefix: String) -> ValueProblem? {
            if prefix.isEmpty || prefix.hasPrefix("/") || prefix.hasSuffix("/") || prefix.contains("//") {
                return ValueProblem("a topic prefix is one or more non-empty levels separated by /, found \"\(prefix)\"",
                                    hint: "for example \"driftbox\" or \"fleet/berlin\"")
            }
            if prefix.contains(where: { $0 == "+" || $0 == "#" || $0 == "\0" }) {
                return ValueProblem("a topic prefix may not contain + # or NUL, found \"\(prefix)\"")
            }
            if prefix.utf8.count > 128 { return ValueProblem("a topic prefix has at most 128 bytes, found \(prefix.utf8.count)") }
            return nil
        }
    }

    /// `[mqtt]` rules that involve more than one key.
    func checkMQTTRules(_ decoder: ConfigDecoder) {
        guard mqtt.enabled, decoder.hasNoIssue("mqtt.enabled") else { return }
        if mqtt.host.isEmpty, decoder.hasNoIssue("mqtt.host") {
            decoder.report(.invalidValue, path: "mqtt.host", message: "must not be empty when mqtt.enabled = true",
                           hint: "the broker's host name or address")
        }
        if !features.mesh, decoder.hasNoIssue("features.mesh") {
            decoder.report(.invalidValue, path: "mqtt.enabled", message: "a gateway bridges the mesh, but features.mesh = false",
                           hint: "set features.mesh = true (with a network key and a radio), or mqtt.enabled = false")
        }
        if mqtt.tls, mqtt.caFile.isEmpty, decoder.hasNoIssue("mqtt.ca_file") {
            decoder.report(.missingKey, path: "mqtt.ca_file", message: "missing required key (required when mqtt.tls = true)",
                           hint: "the CA certificate that signed the broker's certificate, e.g. /etc/ssl/certs/ca-certificates.crt")
        }
        if mqtt.certFile.isEmpty != mqtt.keyFile.isEmpty, decoder.hasNoIssue("mqtt.cert_file"), decoder.hasNoIssue("mqtt.key_file") {
            decoder.report(.invalidValue, path: mqtt.certFile.isEmpty ? "mqtt.cert_file" : "mqtt.key_file",
                           message: "a client certificate needs its key: set both cert_file and key_file, or neither")
        }
        if !mqtt.certFile.isEmpty, !mqtt.tls, decoder.hasNoIssue("mqtt.tls") {
            decoder.report(.invalidValue, path: "mqtt.cert_file", message: "a client certificate is used only with mqtt.tls = true")
        }
        if !mqtt.password.isEmpty, !mqtt.passwordFile.isEmpty, decoder.hasNoIssue("mqtt.password") {
            decoder.report(.invalidValue, path: "mqtt.password", message: "set password or password_file, not both")
        }
    }
}
