/// The line a progress bar draws: `[#####     ] 45% 120/268 users, ETA 0:12`.
public enum ProgressLine {
    /// The bar, the percentage, the count and, once something is done, the time left at the pace
    /// so far.
    ///
    /// - Parameters:
    ///   - done: units done (clamped to 0…`total`).
    ///   - total: units in all (0: the bar is full).
    ///   - unit: what is counted, plural (`users`).
    ///   - elapsed: seconds since the start.
    ///   - width: characters inside the brackets.
    public static func line(done: Int, total: Int, unit: String, elapsed: Double, width: Int = 20) -> String {
        let done = max(0, min(done, total))
        let fraction = total > 0 ? Double(done) / Double(total) : 1
        let percent = Int(fraction * 100)
        var line =
            "\(bar(fraction: fraction, width: width)) \(percent)% \(TextFormat.count(done))/\(TextFormat.count(total)) \(unit)"
        if done > 0 && elapsed.isFinite && elapsed >= 0 {
            line += ", ETA " + clock(elapsed / Double(done) * Double(total - done))
        }
        return line
    }

    /// `[#####     ]`: `fraction` (clamped to 0…1) of `width` characters filled, rounded down.
    public static func bar(fraction: Double, width: Int = 20) -> String {
        let f = fraction.isFinite ? max(0, min(1, fraction)) : 0
        let filled = min(width, Int(f * Double(width)))
        return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "]"
    }

    /// `0:12`, `12:05`, `1:02:03` (seconds rounded up, so that 0:00 means done).
    public static func clock(_ seconds: Double) -> String {
        let s = seconds.isFinite ? Int(min(seconds, 359_999).rounded(.up)) : 0
        let (h, m, r) = (s / 3600, s / 60 % 60, s % 60)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(r))" : "\(m):\(two(r))"
    }
}
