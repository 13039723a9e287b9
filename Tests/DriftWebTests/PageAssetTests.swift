@testable import DriftDaemon
import Foundation
import HTTPTypes
import Testing

/// The page's files as a phone gets them: compressed when it accepts it, with a strong ETag,
/// `304` on revalidation, app.css/app.js kept for a year when asked for by their hash.
@Suite("Page assets: precompressed, ETags, revalidation")
struct PageAssetTests {
    static func get(_ harness: APIHarness, _ path: String, _ headers: HTTPFields = [:]) async throws -> HTTPReply {
        try await harness.client.send(.get, path, headers: headers)
    }

    @Test("gzip (or brotli where the build had it) for a phone that accepts it; the text for one that does not; Vary and ETag on each")
    func codings() async throws {
        try await APIHarness.run { harness in
            let plain = try await Self.get(harness, "/app.js")
            #expect(plain.code == 200)
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(plain.text.contains("use strict"))
            #expect(plain.headers[.vary] == "Accept-Encoding")
            let tag = try #require(plain.headers[.eTag])
            #expect(tag.hasPrefix("\"") && !tag.hasPrefix("W/"), "a strong ETag: \(tag)")

            let gzipped = try await Self.get(harness, "/app.js", [.acceptEncoding: "gzip, deflate"])
            #expect(gzipped.headers[.contentEncoding] == "gzip")
            #expect(gzipped.body.starts(with: [0x1F, 0x8B]), "a gzip stream")
            #expect(gzipped.body.count * 2 < plain.body.count, "\(gzipped.body.count) of \(plain.body.count) bytes")
            #expect(gzipped.headers[.eTag] != tag, "each coding has its own strong ETag")

            let any = try await Self.get(harness, "/app.js", [.acceptEncoding: "gzip, deflate, br"])
            let asset = try #require(PageAssets.files["app.js"])
            #expect(any.headers[.contentEncoding] == (asset.brotli == nil ? "gzip" : "br"))
            let refused = try await Self.get(harness, "/app.js", [.acceptEncoding: "gzip;q=0, br;q=0"])
            #expect(refused.headers[.contentEncoding] == nil)
        }
    }

    @Test("If-None-Match with the ETag: 304 without a body; index.html revalidates, app.js by its hash is kept for a year")
    func revalidation() async throws {
        try await APIHarness.run { harness in
            let page = try await Self.get(harness, "/", [.acceptEncoding: "gzip"])
            #expect(page.headers[.cacheControl] == "no-cache")
            let tag = try #require(page.headers[.eTag])
            let again = try await Self.get(harness, "/", [.acceptEncoding: "gzip", .ifNoneMatch: tag])
            #expect(again.code == 304)
            #expect(again.body.isEmpty)
            #expect(again.headers[.eTag] == tag && again.headers[.vary] == "Accept-Encoding")
            let stale = try await Self.get(harness, "/", [.acceptEncoding: "gzip", .ifNoneMatch: "\"0000\""])
            #expect(stale.code == 200)

            // index.html names app.js by its content hash; that address may be kept.
            let html = try await Self.get(harness, "/")
            let version = try #require(PageAssets.versions["app.js"])
            #expect(html.text.contains("/app.js?v=\(version)"))
            let versioned = try await Self.get(harness, "/app.js?v=\(version)")
            #expect(versioned.headers[.cacheControl] == "public, max-age=31536000, immutable")
            let old = try await Self.get(harness, "/app.js?v=0123")
            #expect(old.headers[.cacheControl] == "no-cache", "an old hash is not promised for a year")
        }
    }

    @Test("Accept-Encoding and If-None-Match parsing")
    func parsing() throws {
        let asset = PageAsset(tag: "abc", gzip: Data([0x1F, 0x8B]).base64EncodedString(), brotli: nil, text: "x")
        #expect(asset.coding(for: nil) == .identity)
        #expect(asset.coding(for: "br") == .identity, "no brotli stored")
        #expect(asset.coding(for: "*") == .gzip)
        #expect(asset.coding(for: "identity, *;q=0") == .identity)
        #expect(asset.coding(for: "GZIP;q=0.5") == .gzip)
        #expect(asset.matches(ifNoneMatch: "W/\"abc-gz\", \"zzz\""))
        #expect(asset.matches(ifNoneMatch: "*"))
        #expect(!asset.matches(ifNoneMatch: "\"ab\""))
    }
}
