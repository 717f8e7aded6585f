import FetchLabCore

extension Tuner {
    /// `users` read once: the first pass goes through `users` and keeps every batch, the later
    /// passes (the rounds of the search, the held-out measurement) are fed the kept batches, so
    /// the events are decoded once. Memory then holds every user's history (the CLI's tune: about
    /// 1 GB per 1,000 users × 90 days of usage and context; see README, Performance).
    public static func keeping(_ users: @escaping UserBatches) -> UserBatches {
        let kept = KeptBatches()
        return { body in
            if let batches = kept.batches {
                for batch in batches { body(batch) }
                return
            }
            var batches: [[UserHistory]] = []
            try users { batch in
                batches.append(batch)
                body(batch)
            }
            kept.batches = batches
        }
    }
}

/// The batches of a finished first pass (nil until one finished).
private final class KeptBatches {
    var batches: [[UserHistory]]? = nil
}
