import DriftConfig
import Foundation
import Testing

@Suite("[mqtt] configuration")
struct MQTTConfigTests {
    private func load(_ replacements: [(String, String)]) throws -> DriftConfiguration {
        try ConfigFixtures.simConfig(replacing: replacements)
    }

    private func issues(_ replacements: [(String, String)]) throws -> [ConfigIssue] {
        try ConfigFixtures.simIssues(replacing: replacements)
    }

    @Test("defaults: off, loopback 1883, prefix driftbox, client id = box id, 5000 queued, 60 s telemetry")
    func defaults() throws {
        let mqtt = try load([]).mqtt
        #expect(!mqtt.enabled && mqtt.host == "127.0.0.1" && mqtt.port == 1883 && !mqtt.tls)
        #expect(mqtt.topicPrefix == "driftbox" && mqtt.clientID == "" && mqtt.keepaliveSeconds == 30)
        #expect(mqtt.queueLimit == 5_000 && mqtt.telemetryIntervalSeconds == 60)
    }

    @Test("an enabled gateway with TLS, client certificate and a password file loads")
    func tlsGateway() throws {
        let mqtt = try load([
            ("enabled = false\nhost = \"127.0.0.1\"", "enabled = true\nhost = \"broker.example\""),
            ("tls = false", "tls = true"), ("ca_file = \"\"", "ca_file = \"/etc/ca.pem\""),
            ("cert_file = \"\"", "cert_file = \"/etc/box.pem\""), ("key_file = \"\"", "key_file = \"/etc/box.key\""),
            ("password_file = \"\"", "password_file = \"/etc/mqtt.pw\""), ("topic_prefix = \"driftbox\"", "topic_prefix = \"fleet/berlin\""),
        ]).mqtt
        #expect(mqtt.enabled && mqtt.tls && mqtt.host == "broker.example" && mqtt.caFile == "/etc/ca.pem")
        #expect(mqtt.topicPrefix == "fleet/berlin" && mqtt.passwordFile == "/etc/mqtt.pw")
    }

    @Test("bad values and combinations are refused with the key", arguments: [
        ([("topic_prefix = \"driftbox\"", "topic_prefix = \"drift/#\"")], "mqtt.topic_prefix"),
        ([("topic_prefix = \"driftbox\"", "topic_prefix = \"/drift\"")], "mqtt.topic_prefix"),
        ([("topic_prefix = \"driftbox\"", "topic_prefix = \"\"")], "mqtt.topic_prefix"),
        ([("port = 1883", "port = 0")], "mqtt.port"),
        ([("queue_limit = 5000", "queue_limit = 1")], "mqtt.queue_limit"),
        ([("enabled = false\nhost", "enabled = true\nhost"), ("tls = false", "tls = true")], "mqtt.ca_file"),
        ([("enabled = false\nhost", "enabled = true\nhost"), ("tls = false", "tls = true"), ("ca_file = \"\"", "ca_file = \"/ca\""),
          ("cert_file = \"\"", "cert_file = \"/c\"")], "mqtt.key_file"),
        ([("enabled = false\nhost", "enabled = true\nhost"), ("password = \"\"", "password = \"x\""),
          ("password_file = \"\"", "password_file = \"/pw\"")], "mqtt.password"),
        ([("enabled = false\nhost", "enabled = true\nhost"), ("host = \"127.0.0.1\"", "host = \"\"")], "mqtt.host"),
        ([("enabled = false\nhost", "enabled = true\nhost"), ("mesh = true", "mesh = false")], "mqtt.enabled"),
    ] as [([(String, String)], String)])
    func refused(_ replacements: [(String, String)], _ key: String) throws {
        let found = try issues(replacements)
        #expect(found.map(\.key).contains(key), "\(found)")
    }
}
