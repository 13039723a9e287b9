import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension VisitorAPI {
    func addPageRoutes(to router: Router<VisitorRequestContext>) {
        router.get("api/v1/openapi.json") { _, _ -> Response in
            Self.asset(PageAssets.openAPIDocument, contentType: "application/json; charset=utf-8")
        }
        router.get("/") { request, _ -> Response in
            try Self.page("index.html", request: request)
        }
        router.get(":file") { request, context -> Response in
            try Self.page(context.parameters.get("file") ?? "", request: request)
        }
    }

    /// How long a browser may keep app.css or app.js asked for by their content hash
    /// (`?v=`, as index.html asks): a year, the usual "immutable" lifetime.
    static let versionedMaxAge = 31_536_000

    /// A page file in the best coding the browser accepts (`Vary: Accept-Encoding`), with a
    /// strong ETag; `304` when `If-None-Match` names it. index.html, and any file asked for
    /// without its current `?v=`, is revalidated on every use (`no-cache`); app.css and
    /// app.js with the current `?v=` may be kept for a year.
    static func page(_ name: String, request: Request) throws -> Response {
        guard let asset = PageAssets.files[name] else { throw APIError(.notFound, code: "not_found", "no such page") }
        let coding = asset.coding(for: request.headers[.acceptEncoding])
        let version = request.uri.queryParameters.get("v")
        let versioned = version != nil && version == PageAssets.versions[name]
        var headers: HTTPFields = [
            .contentType: contentType(of: name),
            .cacheControl: versioned ? "public, max-age=\(versionedMaxAge), immutable" : "no-cache",
            .eTag: asset.etag(coding),
            .vary: "Accept-Encoding",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
        ]
        if coding != .identity { headers[.contentEncoding] = coding.rawValue }
        if asset.matches(ifNoneMatch: request.headers[.ifNoneMatch]) {
            headers[.contentType] = nil
            headers[.contentEncoding] = nil
            return Response(status: .notModified, headers: headers)
        }
        let bytes = asset.bytes(coding) ?? asset.identity
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
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
