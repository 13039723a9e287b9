/// A parsed TOML document: the value tree and where each key was written.
struct TOMLDocument: Sendable, Equatable {
    /// The root table.
    var root: [String: TOMLNode]
    /// Rendered key path (``ConfigKeyPath``) → 1-based line of its first appearance.
    ///
    /// Every table header, key and parent of a dotted key is listed, and the keys of
    /// inline tables that are values of keys; keys inside arrays are not. `[[array]]`
    /// elements share one path (`peers.host`), which keeps the first element's line.
    var lines: [String: Int]
}
