import FetchLabCore

extension Tuner {
    /// `users` read once: the first pass goes through `users` and keeps the batches of the first
    /// `limit` users, as long as their histories hold at most `bytes` (`UserHistory.ownBytes`);
    /// the later passes (the rounds of the search, the held-out measurement) are fed the kept
    /// batches, so their events are decoded once; the users past either limit are read again by
    /// every pass. Memory holds the kept users' histories (about 0.35 MB per user of 90 days of
    /// generated usage and context; an app's content updates are shared by its users; see
    /// Docs/performance.md), so `bytes` bounds it whatever the population's size.
    public static func keeping(limit: Int = .max, bytes: Int = .max, _ users: @escaping UserBatches) -> UserBatches {
        keeping(limit: limit, bytes: bytes) { skipped, body in
            var seen = 0
            try users { batch in
                if seen >= skipped { body(batch) }
                seen += batch.count
            }
        }
    }

    /// Feeds every user but the first `skipped` to `body`, a batch at a time.
    public typealias UserBatchesAfter = (_ skipped: Int, _ body: ([UserHistory]) -> Void) throws -> Void

    /// ``keeping(limit:bytes:_:)`` from a source that can start past the kept users (a database
    /// read from the first user not kept), so the later passes decode only the users not kept.
    public static func keeping(limit: Int = .max, bytes: Int = .max, after users: @escaping UserBatchesAfter)
        -> UserBatches
    {
        let kept = KeptBatches()
        return { body in
            if let batches = kept.batches {
                for batch in batches { body(batch) }
                guard kept.overflow else { return }
                try users(kept.count, body)
                return
            }
            var batches: [[UserHistory]] = []
            var count = 0
            var held = 0
            var overflow = false
            try users(0) { batch in
                let size = overflow ? 0 : batch.reduce(0) { $0 + $1.ownBytes }
                if !overflow, count + batch.count <= limit, size <= bytes - held {
                    batches.append(batch)
                    count += batch.count
                    held += size
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
