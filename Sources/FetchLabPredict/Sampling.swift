/// A deterministic sample of a list.
public enum EvenSample {
    /// Users the blend's weights are fitted on when predicting.
    public static let fitUsers = 40

    /// Up to `limit` items, evenly spread over `items` (all of them when `limit` is 0 or more
    /// than there are).
    public static func pick<T>(_ items: [T], limit: Int) -> [T] {
        guard items.count > limit, limit > 0 else { return items }
        return (0..<limit).map { items[$0 * items.count / limit] }
    }
}
