/// Names close to a mistyped one.
public enum NameSuggestions {
    /// Up to `limit` of `names` closest to `name` by edit distance (ignoring case), closest
    /// first, ties by name; all of them (sorted) when there are no more than `limit`.
    public static func closest(to name: String, among names: [String], limit: Int = 5) -> [String] {
        guard names.count > limit else { return names.sorted() }
        let target = Array(name.lowercased())
        return names.map { (distance(target, Array($0.lowercased())), $0) }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
            .prefix(limit).map(\.1)
    }

    /// The names in `names` close enough to `name` to be what was meant (a typo: an edit distance,
    /// ignoring case, of at most a third of the name's length, at least 2), closest first, ties by
    /// name, at most `limit`; none when no name is that close.
    public static func likely(_ name: String, among names: [String], limit: Int = 3) -> [String] {
        let target = Array(name.lowercased())
        let most = max(2, target.count / 3)
        return names.map { (distance(target, Array($0.lowercased())), $0) }
            .filter { $0.0 <= most }
            .sorted { ($0.0, $0.1) < ($1.0, $1.1) }
            .prefix(limit).map(\.1)
    }

    /// The edit distance between two names, ignoring case.
    public static func distance(_ a: String, _ b: String) -> Int {
        distance(Array(a.lowercased()), Array(b.lowercased()))
    }

    /// Levenshtein distance: insertions, deletions and substitutions.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(
                    previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
