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
    /// With `spill`, the users past the limits are not decoded again either: the first pass also
    /// writes them compactly (its codec, FetchLabScale's `HistoryCodec`) to a record store (its
    /// storage's, FetchLabScale's temporary files), which the later passes read back, in the same
    /// batches. Where the store keeps nothing on disk (none could be made, or it failed: a full
    /// disk), the users from there on are read from the source again, as without it. A failure to
    /// read the store back is thrown by the pass (the storage's `check()`).
    public static func keeping(
        limit: Int = .max, bytes: Int = .max, spill: HistorySpill? = nil, after users: @escaping UserBatchesAfter
    ) -> UserBatches {
        let kept = KeptBatches()
        return { body in
            if let batches = kept.batches {
                for batch in batches { body(batch) }
                try kept.readSpilled(body)
                guard kept.overflow else { return }
                try users(kept.count + kept.spilledCount, body)
                return
            }
            var batches: [[UserHistory]] = []
            var count = 0
            var held = 0
            var full = false
            var overflow = false
            let spilled = spill?.storage.makeStore()
            var codec = spill?.codec
            var spilledSizes: [Int] = []
            try users(0) { batch in
                let size = full ? 0 : batch.reduce(0) { $0 + $1.ownBytes }
                if !full, count + batch.count <= limit, size <= bytes - held {
                    batches.append(batch)
                    count += batch.count
                    held += size
                } else {
                    full = true
                    // Only while the file takes them: once it failed (or none could be made),
                    // the users from here on are read again instead of piling up in memory.
                    if let spilled, spilled.isOnDisk, !overflow {
                        for h in batch { spilled.append(codec!.encode(h)) }
                        spilledSizes.append(batch.count)
                    } else {
                        overflow = true
                    }
                }
                body(batch)
            }
            // Only a finished first pass is kept (a pass that threw leaves nothing behind).
            (kept.spill, kept.codec, kept.storage, kept.spilledSizes) = (spilled, codec, spill?.storage, spilledSizes)
            (kept.batches, kept.count, kept.overflow) = (batches, count, overflow)
        }
    }
}

/// The batches kept by a finished first pass (nil until one finished), how many users they
/// hold, the users written to a temporary file after them (and their batches' sizes), and
/// whether users past those were neither kept nor written.
private final class KeptBatches {
    var batches: [[UserHistory]]? = nil
    var count = 0
    var overflow = false
    var codec: (any HistoryCoding)? = nil
    var spill: (any RecordStore)? = nil
    var storage: (any RecordStorage)? = nil
    var spilledSizes: [Int] = []
    var spilledCount: Int { spilledSizes.reduce(0, +) }

    /// The spilled users, decoded, to `body` in the batches they came in; throws when they cannot
    /// be read back.
    func readSpilled(_ body: ([UserHistory]) -> Void) throws {
        guard let spill, let codec, !spilledSizes.isEmpty else { return }
        var sizes = spilledSizes[...]
        var batch: [UserHistory] = []
        spill.forEach { record in
            batch.append(codec.decode(record))
            if batch.count == sizes.first {
                body(batch)
                batch.removeAll(keepingCapacity: true)
                sizes.removeFirst()
            }
        }
        try storage?.check()
    }
}

/// Histories as bytes for a `RecordStore` and back, exactly (FetchLabScale's `HistoryCodec`).
/// Encoding may remember what it wrote (an app's content updates shared by its users), so one
/// codec encodes every history it will decode; decoding changes nothing and is safe from several
/// threads at once.
public protocol HistoryCoding: Sendable {
    mutating func encode(_ history: UserHistory) -> [UInt8]
    func decode(_ bytes: UnsafeRawBufferPointer) -> UserHistory
}

/// Where ``Tuner/keeping(limit:bytes:spill:after:)`` writes the users past its limits: a record
/// storage and the codec of the histories (FetchLabScale's `HistorySpill.files`).
public struct HistorySpill: Sendable {
    public var storage: any RecordStorage
    public var codec: any HistoryCoding

    public init(storage: any RecordStorage, codec: any HistoryCoding) {
        self.storage = storage
        self.codec = codec
    }
}
