import FetchLabCore
import Testing

@testable import FetchLabScale

/// Histories written compactly and read back by the same codec are the same histories, field by
/// field, whatever their values: unknown offsets and context fields, negative and large numbers,
/// equal times, non-ASCII names; an app's content updates are shared again when they were.
@Suite struct HistoryCodecTests {
    /// A seeded history with every kind of value.
    static func history(seed: UInt64, updates: [[Instant]]) -> UserHistory {
        var rng = SplitMix64(seed: seed)
        func pick<T>(_ xs: [T]) -> T { xs[Int(rng.next() % UInt64(xs.count))] }
        let apps = (0..<updates.count).map { AppID("app \($0) — é\(seed)") }
        var t = Instant(sinceEpoch: -1_000_000 + Microseconds(rng.next() % 1_000))
        func events(_ n: Int) -> [UsageEvent] {
            (0..<n).map { _ in
                t += pick([0, 1, 999, 3_600_000_000, Microseconds(rng.next() % 100_000_000_000)] as [Microseconds])
                return UsageEvent(
                    time: t, user: pick([0, 0, 7, -3]), app: Int32(rng.next() % UInt64(apps.count)),
                    kind: pick(UsageEventKind.allCases), utcOffset: pick([nil, 0, 7_200, -36_000, Int32.min]))
            }
        }
        let launches = events(Int(rng.next() % 300))
        let others = events(Int(rng.next() % 50))
        let context = (0..<Int(rng.next() % 200)).map { _ -> ContextSample in
            t += pick([0, 60_000_000, Microseconds(rng.next() % 10_000_000_000)] as [Microseconds])
            return ContextSample(
                time: t, user: pick([0, 2]), battery: pick([nil, 0, 100, 57.3, Double(rng.next() % 1000) / 7]),
                charging: pick([nil, true, false]),
                network: pick([nil, NetworkType.none, NetworkType.wifi, NetworkType.cellular] as [NetworkType?]),
                lowPower: pick([nil, true, false]), screenOn: pick([nil, true, false]),
                utcOffset: pick([nil, 3_600, Int32.max]))
        }
        return UserHistory(
            user: UserID("user \(seed) ü"), apps: apps, launches: launches, events: others, context: context,
            updateTimes: updates)
    }

    static func expectSame(_ a: UserHistory, _ b: UserHistory, _ label: String) {
        #expect(a.user == b.user, "\(label)")
        #expect(a.apps == b.apps, "\(label)")
        #expect(a.launches == b.launches, "\(label)")
        #expect(a.events == b.events, "\(label)")
        #expect(a.context == b.context, "\(label)")
        #expect(a.updateTimes == b.updateTimes, "\(label)")
    }

    @Test func historiesReadBackExactly() {
        var codec = HistoryCodec()
        let shared: [[Instant]] = [[], [5, 9, 9, 1_000_000_000_000], [-4, 3]]
        var written: [(UserHistory, [UInt8])] = []
        for seed in UInt64(1)...200 {
            let h = Self.history(seed: seed, updates: seed % 3 == 0 ? [[1], [2, 3], [4]] : shared)
            written.append((h, codec.encode(h)))
        }
        for (i, (h, bytes)) in written.enumerated() {
            let back = bytes.withUnsafeBytes { codec.decode($0) }
            Self.expectSame(back, h, "history \(i + 1)")
        }
        #expect(written.contains { !$0.0.context.isEmpty && !$0.0.launches.isEmpty })
    }

    /// The codec keeps the first array of an app's updates; histories with the same array write
    /// a mark (no copy, and the decoded histories share the array); another array is written whole.
    @Test func anAppsContentUpdatesAreWrittenOnceAndSharedAgain() {
        var codec = HistoryCodec()
        let times = (0..<5_000).map { Instant(sinceEpoch: Microseconds($0) * 60_000_000) }
        let first = Self.history(seed: 1, updates: [times])
        let second = Self.history(seed: 1, updates: [times])
        let other = Self.history(seed: 1, updates: [Array(times.dropLast())])
        let a = codec.encode(first)
        let b = codec.encode(second)
        let c = codec.encode(other)
        #expect(a.count == b.count, "both write a mark")
        #expect(c.count > b.count + 5_000, "other updates of the app are written whole")
        let decoded = [a, b].map { bytes in bytes.withUnsafeBytes { codec.decode($0) } }
        #expect(decoded[0].updateTimes[0] == times)
        let addresses = decoded.map { $0.updateTimes[0].withUnsafeBufferPointer { $0.baseAddress } }
        let given = first.updateTimes[0].withUnsafeBufferPointer { $0.baseAddress }
        #expect(addresses[0] == given && addresses[1] == given, "decoded histories share the app's array")
        Self.expectSame(c.withUnsafeBytes { codec.decode($0) }, other, "other updates")
    }

    /// Compact: a history of a generated kind takes a small part of what it holds in memory.
    @Test func theBytesAreFewerThanTheHistorysMemory() {
        var codec = HistoryCodec()
        var rng = SplitMix64(seed: 5)
        var t: Instant = 1_700_000_000_000_000
        let launches = (0..<3_000).map { _ -> UsageEvent in
            t += Microseconds(rng.next() % 3_600_000_000)
            return UsageEvent(time: t, offset: 3_600, app: Int32(rng.next() % 10))
        }
        var context: [ContextSample] = []
        for i in 0..<8_000 {
            let time = Instant(sinceEpoch: 1_700_000_000_000_000 + Microseconds(i) * 900_000_000)
            let battery = Double(i % 100)
            context.append(
                ContextSample(
                    time: time, battery: battery, charging: i % 5 == 0, network: .wifi, lowPower: false,
                    screenOn: i % 2 == 0, utcOffset: 3_600))
        }
        let apps: [AppID] = (0..<10).map { AppID("app\($0)") }
        let h = UserHistory(user: UserID("u"), apps: apps, launches: launches, context: context)
        let bytes = codec.encode(h)
        #expect(bytes.count * 2 < h.ownBytes, "\(bytes.count) bytes for \(h.ownBytes) in memory")
    }
}
