import Foundation

/// One file of the visitor page as `scripts/embed-page.sh` embeds it: its text, the same
/// bytes gzip'd and (when the build machine had `brotli`) brotli'd at build time, and a
/// content hash for its ETags.
struct PageAsset: Sendable {
    /// The first 20 hex digits of the text's SHA-256.
    let tag: String
    /// The text, uncompressed.
    let identity: [UInt8]
    let gzip: [UInt8]
    let brotli: [UInt8]?

    init(tag: String, gzip: String, brotli: String?, text: String) {
        self.tag = tag
        self.identity = Array(text.utf8)
        // The literals come from `base64 -w0` at build time: a bad one is a broken build.
        self.gzip = Array(Data(base64Encoded: gzip) ?? Data())
        self.brotli = brotli.flatMap { Data(base64Encoded: $0) }.map(Array.init)
    }

    /// A content coding the page is stored in.
    enum Coding: String, Sendable, CaseIterable {
        case brotli = "br"
        case gzip
        case identity
    }

    /// The bytes in `coding` (`nil`: not stored that way).
    func bytes(_ coding: Coding) -> [UInt8]? {
        switch coding {
        case .brotli: brotli
        case .gzip: gzip.isEmpty ? nil : gzip
        case .identity: identity
        }
    }

    /// The strong ETag of the representation in `coding` (each coding has its own).
    func etag(_ coding: Coding) -> String {
        switch coding {
        case .brotli: "\"\(tag)-br\""
        case .gzip: "\"\(tag)-gz\""
        case .identity: "\"\(tag)\""
        }
    }

    /// The best stored coding `acceptEncoding` allows: brotli, then gzip, then the text.
    /// `q=0` refuses a coding; `*` stands for any coding not named.
    func coding(for acceptEncoding: String?) -> Coding {
        let accepted = Self.qualities(acceptEncoding ?? "")
        func allows(_ name: String) -> Bool { (accepted[name] ?? accepted["*"] ?? 0) > 0 }
        if brotli != nil, allows("br") { return .brotli }
        if !gzip.isEmpty, allows("gzip") || allows("x-gzip") { return .gzip }
        return .identity
    }

    /// `Accept-Encoding`'s codings with their q-values (lower-cased names).
    static func qualities(_ header: String) -> [String: Double] {
        var result: [String: Double] = [:]
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = parts.first?.lowercased(), !name.isEmpty else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            result[name] = quality
        }
        return result
    }

    /// Whether `ifNoneMatch` names this file's content in any coding (or is `*`): the
    /// browser's copy is current. Weak comparison, as RFC 9110 asks for If-None-Match.
    func matches(ifNoneMatch: String?) -> Bool {
        guard let ifNoneMatch else { return false }
        let known = Set(Coding.allCases.map(etag))
        for raw in ifNoneMatch.split(separator: ",") {
            var candidate = raw.trimmingCharacters(in: .whitespaces)
            if candidate == "*" { return true }
            if candidate.hasPrefix("W/") { candidate.removeFirst(2) }
            if known.contains(candidate) { return true }
        }
        return false
    }
}
