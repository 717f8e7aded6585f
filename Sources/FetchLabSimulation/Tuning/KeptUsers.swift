import FetchLabCore

extension Tuner {
    /// `users` read once: the first pass goes through `users` and keeps the batches of the first
    /// `limit` users, the later passes (the rounds of the search, the held-out measurement) are
    /// fed the kept batches, so their events are decoded once; the users past the limit are read
    /// again by every pass. Memory holds the kept users' histories (about 0.2 MB per user of 90
    /// days of generated usage and context; an app's content updates are shared by its users;
    /// see Docs/performance.md).
    public static func keeping(limit: Int = .max, _ users: @escaping UserBatches) -> UserBatches {
        let kept = KeptBatches()
        return { body in
            if let batches = kept.batches {
                for batch in batches { body(batch) }
                guard kept.overflow else { return }
                var seen = 0
                try users { batch in
                    if seen >= kept.count { body(batch) }
                    seen += batch.count
                }
                return
            }
            var batches: [[UserHistory]] = []
            var count = 0
            var overflow = false
            try users { batch in
                if !overflow, count + batch.count <= limit {
                    batches.append(batch)
                    count += batch.count
                } else {
                    overflow = true
                }
                body(batch)
            }
            (kept.batches, kept.count, kept.overflow) = (batches, count, overflow)
        }
    }
}

/// The batches kept by a finished first pass (nil until one finished), how many users they
/// hold, and whether users past them were not kept.
private final class KeptBatches {
    var batches: [[UserHistory]]? = nil
    var count = 0
    var overflow = false
}
