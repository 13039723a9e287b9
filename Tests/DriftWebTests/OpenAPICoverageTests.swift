import DriftCore
import DriftDaemon
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@Suite("OpenAPI coverage: the routes the server registers and the document agree")
struct OpenAPICoverageTests {
    /// "GET /api/v1/bottles/{id}" for a registered route (`:id` and `{id}` both map to `{id}`).
    static func name(_ route: Router<VisitorRequestContext>.RouteDescription) -> String {
        let path = route.path.description.split(separator: "/", omittingEmptySubsequences: true).map { part -> String in
            part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
        }
        return "\(route.method.rawValue) /\(path.joined(separator: "/"))"
    }

    /// The page routes are not part of the API contract.
    static let exempt: Set<String> = ["GET /", "GET /{file}"]

    static func registered(_ api: VisitorAPI) -> Set<String> {
        Set(api.router().routes.map(name)).subtracting(exempt)
    }

    @Test("every registered route is documented, and every documented operation is registered")
    func routesMatchDocument() async throws {
        let document = try OpenAPIDocument.load()
        try await APIHarness.run { harness in
            let registered = Self.registered(harness.api)
            #expect(registered.count >= 20, "suspiciously few routes: \(registered.sorted())")
            let documented = document.operations
            let undocumented = registered.subtracting(documented)
            let stale = documented.subtracting(registered)
            #expect(undocumented.isEmpty, "registered but not in api/openapi.json: \(undocumented.sorted())")
            #expect(stale.isEmpty, "in api/openapi.json but not registered: \(stale.sorted())")
        }
    }

    @Test("the served document is the repository's api/openapi.json")
    func servedDocumentMatches() async throws {
        let document = try OpenAPIDocument.load()
        try await APIHarness.run { harness in
            let reply = try await harness.client.get("/api/v1/openapi.json")
            document.expect(reply, .get, "/api/v1/openapi.json", status: 200)
            #expect(reply.json == document.root)
        }
    }
}
