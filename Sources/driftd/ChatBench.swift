import ArgumentParser
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Bench {
    /// `driftd bench chat --url URL [--clients 200] [--lines 100]`: how long a chat line takes
    /// to reach every participant connected to a bottle's live chat, against a running driftd.
    ///
    /// Makes `clients` device tokens, drops one bottle without conditions, has every client
    /// open it and connect `…/live`, then posts `lines` chat lines over HTTP (each from a
    /// different client, spaced by `--interval-ms`) and times each line from just before its
    /// POST to its arrival on every socket. The daemon should run with
    /// `http.limit_per_client = false` (all clients share one address).
    struct ChatBench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "chat",
            abstract: "Delay of chat lines fanned out to many live WebSocket clients of a running driftd.")

        @Option(help: "The daemon's visitor page, e.g. http://127.0.0.1:8080.") var url: String
        @Option(help: "Connected clients.") var clients = 200
        @Option(help: "Chat lines to post.") var lines = 100
        @Option(help: "Pause between posted lines, milliseconds.") var intervalMs = 20
        @Flag(help: "Print the figures as JSON.") var json = false

        func validate() throws {
            guard clients >= 1, clients <= 2000 else { throw ValidationError("--clients must be 1…2000") }
            guard lines >= 1, lines <= clients else { throw ValidationError("--lines must be 1…clients (each line comes from another client)") }
        }

        func run() async throws {
            let base = url.hasSuffix("/") ? String(url.dropLast()) : url
            let http = BenchHTTP(base: base)
            var tokens: [String] = []
            for _ in 0..<clients { tokens.append(try await http.token()) }
            let bottle = try await http.dropOpenBottle(as: tokens[0])
            for token in tokens.dropFirst() { try await http.open(bottle, as: token) }

            let tally = Tally()
            let start = ContinuousClock.now
            let elapsed: @Sendable () -> Double = { let d = ContinuousClock.now - start; return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
            let logger = { var logger = Logger(label: "bench"); logger.logLevel = .error; return logger }()
            let wsBase = base.replacingOccurrences(of: "http://", with: "ws://")
            let expected = lines
            try await withThrowingTaskGroup(of: Void.self) { group in
                for token in tokens {
                    group.addTask {
                        try await WebSocketClient.connect(url: "\(wsBase)/api/v1/bottles/\(bottle)/live?token=\(token)", logger: logger) { inbound, _, _ in
                            var seen = 0
                            for try await message in inbound.messages(maxSize: 1 << 16) {
                                guard case .text(let text) = message else { continue }
                                let at = elapsed()
                                if text.contains("\"type\":\"hello\"") { tally.connected.withLock { $0 += 1 }; continue }
                                guard text.contains("\"type\":\"message\""), let range = text.range(of: "bench-line-") else { continue }
                                let key = String(text[range.lowerBound...].prefix { $0 != "\"" })
                                tally.arrivals.withLock { $0[key, default: []].append(at) }
                                seen += 1
                                if seen == expected { return }
                            }
                        }
                    }
                }
                // Wait until every client is inside, then post.
                let deadline = ContinuousClock.now + .seconds(60)
                while tally.connected.withLock({ $0 }) < tokens.count, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
                let inside = tally.connected.withLock { $0 }
                var sentAt: [String: Double] = [:]
                for index in 0..<lines {
                    let key = "bench-line-\(index)"
                    sentAt[key] = elapsed()
                    try await http.post(key, to: bottle, as: tokens[(index + 1) % tokens.count])
                    try await Task.sleep(for: .milliseconds(intervalMs))
                }
                // Give the last lines time to arrive, then stop the clients.
                let end = ContinuousClock.now + .seconds(30)
                while tally.arrivals.withLock({ $0.values.reduce(0) { $0 + $1.count } }) < lines * inside, ContinuousClock.now < end {
                    try await Task.sleep(for: .milliseconds(50))
                }
                group.cancelAll()
                let delays = tally.arrivals.withLock { arrivals in
                    arrivals.flatMap { key, times in times.map { ($0 - (sentAt[key] ?? $0)) * 1000 } }
                }.sorted()
                report(delays: delays, inside: inside, expected: lines * inside)
            }
        }

        func report(delays: [Double], inside: Int, expected: Int) {
            func percentile(_ p: Double) -> Double {
                guard !delays.isEmpty else { return .nan }
                return delays[min(delays.count - 1, Int((Double(delays.count) * p).rounded(.up)) - 1)]
            }
            let figures: [String: Double] = [
                "clients": Double(clients), "connected": Double(inside), "lines": Double(lines),
                "deliveries": Double(delays.count), "missing": Double(expected - delays.count),
                "p50Ms": percentile(0.5), "p90Ms": percentile(0.9), "p99Ms": percentile(0.99), "maxMs": delays.last ?? .nan,
            ]
            if json {
                let data = (try? JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys])) ?? Data()
                print(String(decoding: data, as: UTF8.self))
            } else {
                print(String(format: "chat fan-out: %d clients connected, %d lines, %d deliveries (%d missing)", inside, lines, delays.count, expected - delays.count))
                print(String(format: "delay post → arrival: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms",
                             percentile(0.5), percentile(0.9), percentile(0.99), delays.last ?? .nan))
            }
        }
    }
}

/// What the clients saw: hellos, and arrival times by line.
final class Tally: Sendable {
    let connected = Mutex(0)
    let arrivals = Mutex<[String: [Double]]>([:])
}

/// The few API calls the benchmark makes, over plain HTTP.
struct BenchHTTP: Sendable {
    let base: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func call(_ method: String, _ path: String, token: String?, body: [String: Any]?) async throws -> [String: Any] {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw Failure(description: "\(method) \(path): HTTP \(status): \(String(decoding: data, as: UTF8.self))")
        }
        return (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    func token() async throws -> String {
        guard let token = try await call("POST", "/api/v1/visitors", token: nil, body: nil)["token"] as? String else {
            throw Failure(description: "no token in the answer")
        }
        return token
    }

    /// A bottle without conditions, opened by its creator (so its chat is live).
    func dropOpenBottle(as token: String) async throws -> String {
        guard let id = try await call("POST", "/api/v1/bottles", token: token, body: ["text": "benchmark bottle"])["id"] as? String else {
            throw Failure(description: "no bottle id in the answer")
        }
        try await open(id, as: token)
        return id
    }

    func open(_ bottle: String, as token: String) async throws {
        _ = try await call("POST", "/api/v1/bottles/\(bottle)/open", token: token, body: [:])
    }

    func post(_ text: String, to bottle: String, as token: String) async throws {
        _ = try await call("POST", "/api/v1/bottles/\(bottle)/messages", token: token, body: ["text": text, "language": "en"])
    }
}
