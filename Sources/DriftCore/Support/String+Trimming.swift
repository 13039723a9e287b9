extension String {
    /// The string without leading and trailing whitespace and newlines (Unicode-aware).
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace || first.isNewline { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace || last.isNewline { scalars.removeLast() }
        return String(scalars)
    }
}
