extension Array where Element == Instant {
    /// In an ascending array: the number of elements at or before `t` (so the index of the first
    /// one after it), or, with `inclusive: false`, the number strictly before `t`.
    @inlinable public func count(upTo t: Instant, inclusive: Bool = true) -> Int {
        var lo = 0
        var hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if self[mid] < t || (inclusive && self[mid] == t) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
