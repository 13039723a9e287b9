import Foundation

/// A request on the control socket: one JSON object per line.
///
/// `{"command":"status"}` or `{"command":"…","arguments":{"key":"value"}}`.
public struct ControlRequest: Codable, Sendable, Equatable {
    public var command: String
    public var arguments: [String: String]

    public init(command: String, arguments: [String: String] = [:]) {
        self.command = command
        self.arguments = arguments
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        command = try container.decode(String.self, forKey: .command)
        arguments = try container.decodeIfPresent([String: String].self, forKey: .arguments) ?? [:]
    }
}

/// A failure answered on the control socket as `{"error":{"code":…,"message":…}}`.
public struct ControlError: Error, Codable, Sendable, Equatable {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    static func unknownCommand(_ command: String, known: [String]) -> ControlError {
        ControlError(code: "unknown_command", message: "unknown command '\(command)'; known: \(known.sorted().joined(separator: ", "))")
    }
}

/// The envelope of every answer: exactly one of `result` and `error`.
public struct ControlResponse<Result: Codable & Sendable>: Codable, Sendable {
    public var result: Result?
    public var error: ControlError?
}

/// The commands the control socket answers, by name.
public struct ControlCommands: Sendable {
    /// Handles one request; returns the JSON of the result.
    public typealias Handler = @Sendable ([String: String]) async throws -> Data

    private(set) var handlers: [String: Handler] = [:]

    public init() {}

    /// Registers `command` to answer with `handler`'s encodable result.
    public mutating func register<Result: Encodable & Sendable>(
        _ command: String, _ handler: @escaping @Sendable ([String: String]) async throws -> Result
    ) {
        handlers[command] = { arguments in
            let value = try await handler(arguments)
            return try ControlCoding.encoder.encode(value)
        }
    }

    /// Answers one raw request line with one response line (without newline).
    public func respond(to line: Data) async -> Data {
        let request: ControlRequest
        do {
            request = try JSONDecoder().decode(ControlRequest.self, from: line)
        } catch {
            return Self.errorLine(ControlError(code: "bad_request", message: "expected one JSON object with a \"command\" string per line"))
        }
        guard let handler = handlers[request.command] else {
            return Self.errorLine(.unknownCommand(request.command, known: Array(handlers.keys)))
        }
        do {
            let result = try await handler(request.arguments)
            var line = Data("{\"result\":".utf8)
            line.append(result)
            line.append(Data("}".utf8))
            return line
        } catch let error as ControlError {
            return Self.errorLine(error)
        } catch {
            return Self.errorLine(ControlError(code: "failed", message: "\(error)"))
        }
    }

    static func errorLine(_ error: ControlError) -> Data {
        (try? ControlCoding.encoder.encode(ControlResponse<String>(result: nil, error: error))) ?? Data("{\"error\":{\"code\":\"failed\",\"message\":\"\"}}".utf8)
    }
}

enum ControlCoding {
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}
