/// "Did you mean …?" candidates by edit distance.
enum Suggestion {
    /// The candidate closest to `word`, if it is close enough to be a plausible typo.
    ///
    /// Case, `-` versus `_` and one word containing the other (`baudrate` → `baud`) also count.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let needle = normalized(word)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let other = normalized(candidate)
            var distance = editDistance(needle, other)
            if distance > 0, min(needle.count, other.count) >= 3, needle.contains(other) || other.contains(needle) {
                distance = min(distance, 1)
            }
            let limit = max(1, min(3, max(needle.count, other.count) / 3))
            guard distance <= limit else { continue }
            if best == nil || distance < best!.distance {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    private static func normalized(_ word: String) -> [Character] {
        Array(word.lowercased().map { $0 == "-" ? "_" : $0 })
    }

    /// Levenshtein distance with adjacent transpositions counted as one edit.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previousPrevious[j - 2] + 1)
                }
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        editDistance(Array(a), Array(b))
    }
}
