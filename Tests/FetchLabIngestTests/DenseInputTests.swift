import FetchLabCore
import FetchLabResults
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabIngest

/// Foreground logs with many samples inside `--reorder-window` (the reader used to re-sort all of
/// them on every line): the order and counts must match a plain sort-then-sessionise reference,
/// and the number of samples held for the window is bounded.
@Suite struct DenseInputTests {
    static let start = CivilDate(year: 2023, month: 12, day: 19).daysSince1970

    /// `YYYY-MM-DD HH:MM:SS.ffffff` of an instant (UTC).
    static func stamp(_ t: Instant) -> String {
        let seconds = t.wholeSeconds
        let day = LocalCalendar.day(localSeconds: seconds)
        let s = Int(seconds - Int64(day) * Seconds.perDay)
        let micros = Int(t - .seconds(seconds))
        let (hour, minute) = (Int(Seconds.perHour), Int(Seconds.perMinute))
        func pad(_ n: Int, _ w: Int) -> String {
            String(repeating: "0", count: max(0, w - String(n).count)) + String(n)
        }
        return "\(CivilDate(daysSince1970: day)) \(pad(s / hour, 2)):\(pad(s % hour / minute, 2)):\(pad(s % minute, 2))"
            + ".\(pad(micros, 6))"
    }

    /// A dense log: about four samples a second of a few apps (including an excluded launcher),
    /// with exact duplicates, samples at the same instant, and samples moved back by up to
    /// `maxLateness` (some of them beyond a window of that size).
    static func denseLog(seed: UInt64, count: Int, maxLateness: Microseconds) -> [(Instant, String)] {
        var rng = SplitMix64(seed: seed)
        var t = LocalCalendar.midnight(of: start, offset: 0) + .hours(8)
        var app = "com.app0"
        var out: [(Instant, String)] = []
        for _ in 0..<count {
            let r = rng.next() % 100
            if r < 3, let last = out.last {
                out.append(last)  // an exact duplicate
                continue
            }
            if r < 5, let last = out.last {
                out.append((last.0, "com.app\(rng.next() % 4)"))  // same instant, maybe another app
                continue
            }
            t += Microseconds(rng.next() % UInt64(Microseconds.perSecond / 2)) + 1
            if r < 15 { app = r < 8 ? "com.android.launcher" : "com.app\(rng.next() % 6)" }
            if r < 25 && r >= 20 {
                // Out of order: up to `maxLateness` back, a fifth of them beyond it.
                let late = Microseconds(rng.next() % UInt64((maxLateness + maxLateness / Int64(4)).value))
                out.append((t - late, "com.app\(rng.next() % 6)"))
                continue
            }
            if r == 99 { t += .minutes(7) }  // a gap longer than a session
            out.append((t, app))
        }
        return out
    }

    struct Outcome: Equatable {
        var launches: [String] = []
        var rejected = 0
        var duplicate = 0
        var excluded = 0
        var merged = 0
    }

    /// The rule, the simple way: reject lines beyond the window of the newest line before them,
    /// sort the rest by (time, app in first-seen order, line), drop exact duplicates and excluded
    /// apps, merge samples of the same app within the session gap.
    static func reference(
        _ samples: [(Instant, String)], window: Microseconds, gap: Microseconds, excluded: String
    ) -> Outcome {
        var outcome = Outcome()
        var newest = Instant.distantPast
        var ids: [String: Int] = [:]
        var kept: [(time: Instant, app: Int, line: Int, name: String)] = []
        for (line, (t, name)) in samples.enumerated() {
            if t < newest && newest - t > window {
                outcome.rejected += 1
                continue
            }
            newest = max(newest, t)
            let id = ids[name] ?? ids.count
            ids[name] = id
            kept.append((t, id, line, name))
        }
        kept.sort { ($0.time, $0.app, $0.line) < ($1.time, $1.app, $1.line) }
        var last: (Instant, Int)?
        var session: (app: Int, time: Instant)?
        for s in kept {
            if let l = last, l == (s.time, s.app) {
                outcome.duplicate += 1
                continue
            }
            last = (s.time, s.app)
            if s.name == excluded {
                outcome.excluded += 1
                continue
            }
            if let se = session, se.app == s.app, s.time - se.time <= gap {
                outcome.merged += 1
            } else {
                outcome.launches.append("\(s.time.sinceEpoch) \(s.name)")
            }
            session = (s.app, s.time)
        }
        return outcome
    }

    @Test(arguments: [
        (UInt64(1), Microseconds.seconds(30)), (2, .minutes(10)), (3, .days(100_000)), (4, .hours(1)),
    ])
    func denseOutOfOrderInputMatchesTheReference(seed: UInt64, window: Microseconds) throws {
        let samples = Self.denseLog(seed: seed, count: 40_000, maxLateness: min(window, .minutes(20)))
        let text = samples.map { "\(Self.stamp($0.0)),\($0.1)" }.joined(separator: "\n") + "\n"
        let result = try read(text, name: "dense-u.log") {
            $0.format = .foreground
            $0.reorderWindow = window
            $0.excludedApps = ["com.android.launcher"]
        }
        let expected = Self.reference(
            samples, window: window, gap: ReadOptions().sessionGap, excluded: "com.android.launcher")
        let launches = result.usage.map { "\($0.time.sinceEpoch) \(result.apps[Int($0.app)])" }
        #expect(launches.count == expected.launches.count)
        #expect(launches == expected.launches)
        let c = result.counts
        #expect(
            Outcome(
                launches: launches, rejected: c.rejected, duplicate: c.duplicate, excluded: c.excluded,
                merged: c.merged) == expected)
        #expect(c.rows == samples.count)
        #expect(c.rows == launches.count + c.rejected + c.duplicate + c.excluded + c.merged)
        #expect(c.duplicate > 0 && c.merged > 0 && c.excluded > 0)
        if window < .minutes(20) { #expect(c.rejected > 0) }
    }

    /// Every line within a window of 100,000 days stays pending until the end; past the limit the
    /// file fails with one line that names --reorder-window (instead of growing without bound).
    @Test func tooManySamplesInsideTheWindowFailTheFileNamingTheOption() throws {
        let dir = TemporaryDirectory()
        let t0 = LocalCalendar.midnight(of: Self.start, offset: 0)
        let text = (0..<1_000).map { "\(Self.stamp(t0 + .seconds(Int64($0)))),com.app\($0 % 3)" }
            .joined(separator: "\n")
        var options = ReadOptions()
        options.format = .foreground
        options.reorderWindow = .days(100_000)
        let reader = try LogReader(path: try dir.write("big-window.log", text), options: options)
        reader.maxPendingForegroundSamples = 100
        do {
            while try reader.nextBatch() != nil {}
            Issue.record("read without an error")
        } catch {
            #expect(error.code == .usage)
            #expect(error.line == 101)
            #expect(error.description.contains("--reorder-window 100000d"))
            #expect(!error.description.contains("\n"))
        }
    }

    /// The limit counts the samples inside the window, not the file: a long file whose window
    /// holds few samples at a time reads to the end under the same small limit.
    @Test func aLongFileWithASmallWindowStaysUnderTheLimit() throws {
        let dir = TemporaryDirectory()
        let t0 = LocalCalendar.midnight(of: Self.start, offset: 0)
        // Four samples a second for 50 minutes, a 10 s window: about 40 samples pending at a time.
        let text = (0..<12_000).map {
            "\(Self.stamp(t0 + Int64($0) * Microseconds.perSecond / 4)),com.app\($0 / 1_000)"
        }
        .joined(separator: "\n")
        var options = ReadOptions()
        options.format = .foreground
        options.reorderWindow = .seconds(10)
        let reader = try LogReader(path: try dir.write("small-window.log", text), options: options)
        reader.maxPendingForegroundSamples = 100
        var counts = ReadCounts()
        var launches = 0
        while let batch = try reader.nextBatch() {
            counts += batch.counts
            launches += batch.usage.count
        }
        #expect(counts.accepted == 12_000)
        #expect(launches == 12)
        #expect(counts.merged == 12_000 - 12)
    }
}
