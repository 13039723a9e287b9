import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension VisitorAPI {
    func addPageRoutes(to router: Router<VisitorRequestContext>) {
        router.get("api/v1/openapi.json") { _, _ -> Response in
            Self.asset(PageAssets.openAPIDocument, contentType: "application/json; charset=utf-8")
        }
        router.get("/") { _, _ -> Response in
            try Self.page("index.html")
        }
        router.get(":file") { _, context -> Response in
            try Self.page(context.parameters.get("file") ?? "")
        }
    }

    static func page(_ name: String) throws -> Response {
        guard let text = PageAssets.files[name] else { throw APIError(.notFound, code: "not_found", "no such page") }
        return asset(text, contentType: contentType(of: name))
    }

    static func asset(_ text: String, contentType: String) -> Response {
        Response(status: .ok, headers: [.contentType: contentType, .cacheControl: "no-cache",
                                        HTTPField.Name("X-Content-Type-Options")!: "nosniff"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last.map(String.init) ?? "" {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "json", "webmanifest": "application/json; charset=utf-8"
        case "txt", "md": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }
}
