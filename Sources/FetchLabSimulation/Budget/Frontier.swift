/// A piecewise-linear curve of fresh rate over fetches per day through its Pareto points: the
/// fixed-interval baseline, a family's front.
public struct Frontier: Sendable, Hashable {
    /// The Pareto points (fetches per day, fresh rate), both increasing.
    public private(set) var points: [(x: Double, y: Double)]

    /// Keeps the Pareto points (each fresher than every cheaper one; of equal costs the freshest),
    /// sorted by fetches per day, to be joined linearly: mixing two settings across apps reaches any
    /// point between them.
    public init(_ raw: [(x: Double, y: Double)]) {
        self.init(sortedByCost: raw.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y > $1.y })
    }

    /// The same from points already in order of cost (ties in any order).
    init(sortedByCost sorted: [(x: Double, y: Double)]) {
        var out: [(x: Double, y: Double)] = []
        out.reserveCapacity(min(sorted.count, 64))
        for p in sorted {
            if let last = out.last {
                guard p.y > last.y else { continue }
                if p.x == last.x { out.removeLast() }
            }
            out.append(p)
        }
        points = out
    }

    /// The fresh rate at `x` fetches per day: linear between points, flat past the last point
    /// (and before the first).
    public func value(at x: Double) -> Double? {
        guard let first = points.first, let last = points.last else { return nil }
        if x <= first.x { return first.y }
        if x >= last.x { return last.y }
        for i in 1..<points.count where x <= points[i].x {
            let a = points[i - 1]
            let b = points[i]
            if b.x == a.x { return b.y }
            return a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x)
        }
        return last.y
    }

    public static func == (a: Frontier, b: Frontier) -> Bool {
        a.points.count == b.points.count && zip(a.points, b.points).allSatisfy { $0.x == $1.x && $0.y == $1.y }
    }

    public func hash(into h: inout Hasher) {
        for p in points {
            h.combine(p.x)
            h.combine(p.y)
        }
    }
}
