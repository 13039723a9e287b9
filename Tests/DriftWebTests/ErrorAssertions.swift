import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import Testing

/// The API's one error shape: `{"error":{"code","message"[,"details"]}}`, JSON, no internals.
enum ErrorShape {
    /// Text that must never reach a client: Swift type names, source or data paths, SQL.
    static let internals = [
        "Swift.", "Optional(", "DecodingError", "CodingKeys", "APIError", "BottleStoreError", "DomainValidationError",
        "SystemError", "MediaProbeError", "DriftCore", "DriftStore", "DriftDaemon", "DriftMedia", ".swift", "/tmp/", "/work/",
        "Sources/", "SQLite", "SQLITE", "sqlite", "SELECT ", "INSERT ", "UPDATE ", "GRDB", "NIOCore", "Hummingbird", "0x",
    ]

    /// Checks `reply` is an error with `status` and `code`, and returns its `error` object.
    @discardableResult
    static func expect(_ reply: HTTPReply, status: Int, code: String, sourceLocation: SourceLocation = #_sourceLocation) -> JSON {
        #expect(reply.code == status, "expected \(status) \(code): \(reply)", sourceLocation: sourceLocation)
        #expect(reply.isJSON, "error Content-Type: \(reply.contentType)", sourceLocation: sourceLocation)
        let json = reply.json
        #expect(json.keys == ["error"], "error body: \(reply.text)", sourceLocation: sourceLocation)
        let error = json["error"]
        #expect(error["code"].string == code, "error code: \(reply.text)", sourceLocation: sourceLocation)
        let message = error["message"].string ?? ""
        #expect(!message.isEmpty, "error message empty: \(reply.text)", sourceLocation: sourceLocation)
        #expect(error.keys.isSubset(of: ["code", "message", "details"]), "error keys: \(error.keys)", sourceLocation: sourceLocation)
        for leak in internals where reply.text.contains(leak) {
            Issue.record("error body leaks internals (\(leak)): \(reply.text)", sourceLocation: sourceLocation)
        }
        return error
    }
}
