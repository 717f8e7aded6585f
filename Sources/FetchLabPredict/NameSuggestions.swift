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
