import FetchLabCore
import FetchLabSimulation
import Foundation
import Testing
import _FetchLabTestSupport

/// Issue 45, with the real binary: a partial is untrusted input. Every value that cannot be is
/// refused in one line naming the file, line and field, before anything is summed; a refused
/// merge stores nothing; no input, however large or hostile, takes more than 200 MB.
@Suite struct UntrustedPartialTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("u.sqlite") }

    /// A process's exit status, output and peak resident memory in kilobytes.
    struct Measured {
        var status: Int32
        var err: String
        var peakKB: Int
    }

    /// Runs the binary with `arguments`, stdout discarded, stderr kept, and its peak RSS.
    ///
    /// Measured from a small intermediate process (python3, which forks the binary and reads its
    /// child's `ru_maxrss`): a process spawned straight from this test runner inherits the runner's
    /// high-water mark at `exec` (Linux keeps the larger of the old and new images'), so its own
    /// `ru_maxrss` would be the runner's hundreds of megabytes.
    func measured(_ arguments: [String]) throws -> Measured {
        let errPath = dir.path("stderr-\(UUID().uuidString)")
        let script = """
            import resource, subprocess, sys
            with open(sys.argv[1], "w") as err:
                r = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            print(peak // 1024 if sys.platform == "darwin" else peak)
            sys.exit(r.returncode if r.returncode >= 0 else 128 - r.returncode)
            """
        let r = try run("/usr/bin/env", ["python3", "-c", script, errPath, fetchlabBinary()] + arguments)
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: errPath)
        let peak = try #require(Int(r.out.trimmingCharacters(in: .whitespacesAndNewlines)), "python3: \(r.err)")
        return Measured(status: r.status, err: err, peakKB: peak)
    }

    /// A small population's shard 1/2 as a partial (its lines, decompressed).
    func partial(_ options: [String] = []) throws -> (path: String, lines: [String]) {
        try dir.importGenerated(users: 8, days: 14, seed: 3, into: db)
        let path = dir.path("p.gz")
        let made = try dir.fetchlab(
            [
                "compare", "--db", db, "--warm-up", "3", "--policies", "oracle,fixed(1h),predictive(15m,0.3)",
                "--resamples", "50", "--no-store", "--no-platform-lines", "--format", "json", "--shard", "1/2",
                "--partial", path,
            ] + options)
        #expect(made.status == 0, "\(made.err)")
        let text = String(decoding: try gzip(try bytes(path), arguments: ["-d", "-c"]), as: UTF8.self)
        return (path, text.split(separator: "\n").map(String.init))
    }

    /// Runs merge into the database (so that a run would be stored) and expects a refusal: exit ≠ 0,
    /// one line on stderr, under 200 MB.
    func expectRefused(_ lines: [String], _ words: [String] = [], _ context: String) throws -> Measured {
        let file = try dir.writeGzip("crafted.gz", lines.joined(separator: "\n") + "\n")
        let r = try measured(["merge", file, "--db", db])
        #expect(r.status != 0 && r.status < 128, "\(context): exit \(r.status): \(r.err)")
        #expect(r.err.split(separator: "\n").count == 1 && r.err.hasPrefix("fetchlab: error: "), "\(context): \(r.err)")
        #expect(r.peakKB < 200_000, "\(context): \(r.peakKB) kB")
        for word in words { #expect(r.err.contains(word), "\(context): \(word): \(r.err)") }
        return r
    }

    func storedRuns() throws -> Int {
        let r = try dir.fetchlab(["runs", "--db", db, "--format", "json"])
        let object = try JSONSerialization.jsonObject(with: r.stdout)
        return ((object as? [String: Any])?["runs"] as? [Any])?.count ?? (object as? [Any])?.count ?? -1
    }

    // MARK: - The sweep

    /// A numeric leaf of a line's JSON: its path of keys and indices.
    enum Step: Hashable {
        case key(String)
        case index(Int)
    }

    static func numericLeaves(_ value: Any, _ path: [Step] = [], into out: inout [[Step]]) {
        if let n = value as? NSNumber {
            // JSON's true and false come back as numbers too.
            if String(cString: n.objCType) != "c" { out.append(path) }
        } else if let d = value as? [String: Any] {
            for (k, v) in d { numericLeaves(v, path + [.key(k)], into: &out) }
        } else if let a = value as? [Any] {
            for (i, v) in a.enumerated() { numericLeaves(v, path + [.index(i)], into: &out) }
        }
    }

    static func setting(_ value: Any, at path: ArraySlice<Step>, to new: Int64) -> Any {
        guard let step = path.first else { return NSNumber(value: new) }
        switch step {
        case .key(let k):
            var d = value as! [String: Any]
            d[k] = setting(d[k]!, at: path.dropFirst(), to: new)
            return d
        case .index(let i):
            var a = value as! [Any]
            a[i] = setting(a[i], at: path.dropFirst(), to: new)
            return a
        }
    }

    /// The field's kind: its path with indices and map keys (apps, groups) left out.
    static func kind(_ line: Int, _ path: [Step]) -> String {
        let keys = path.compactMap { step -> String? in
            if case .key(let k) = step { return k.contains(".") ? "*" : k }
            return nil
        }
        return "\(line == 0 ? "header" : "line").\(keys.joined(separator: "."))"
    }

    /// Whether every value of `field` is a value it may take: the bootstrap's seed (any 64-bit
    /// number), an exact sum's fraction word (any 64 bits), an instant (−1 µs and 10¹² µs are
    /// 1969 and 1970), a UTC offset of −1 s.
    static func isLegal(_ kind: String, _ value: Int64) -> Bool {
        if kind.hasSuffix(".seed") || kind.hasSuffix(".fraction") { return value >= 0 }
        if kind == "line.start" || kind == "line.end" { return value == -1 || value == 1_000_000_000_000 }
        if kind == "line.offset" { return value == -1 }
        return false
    }

    /// Sets every kind of numeric field of a partial (one field of each kind, picked with a fixed
    /// seed) to 2⁶³ − 1, −2⁶³, −1 and 10¹² in turn, the configuration's fingerprint recomputed as
    /// anyone editing the file could: every value that cannot be is refused in one line, under
    /// 200 MB, and no run is stored.
    @Test func everyNumericFieldSetToAnImpossibleValueIsRefused() throws {
        let (_, lines) = try partial()
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) }
        var byKind: [String: [(line: Int, path: [Step])]] = [:]
        for (i, object) in objects.enumerated() {
            var leaves: [[Step]] = []
            Self.numericLeaves(object, into: &leaves)
            for path in leaves { byKind[Self.kind(i, path), default: []].append((i, path)) }
        }
        #expect(byKind.count > 100, "\(byKind.count) kinds of field")
        #expect(byKind.keys.contains("header.totals.fresh") && byKind.keys.contains("line.budget.bound.scored"))
        let runsBefore = try storedRuns()
        var rng = SplitMix64(seed: 45)
        var refused = 0
        var peak = 0
        for kind in byKind.keys.sorted() {
            let candidates = byKind[kind]!
            let (line, path) = candidates[Int(rng.next() % UInt64(candidates.count))]
            for value: Int64 in [.max, .min, -1, 1_000_000_000_000] where !Self.isLegal(kind, value) {
                var edited = objects
                edited[line] = Self.setting(objects[line], at: path[...], to: value)
                if line == 0, var header = edited[0] as? [String: Any], let c = header["configuration"],
                    let data = try? JSONSerialization.data(withJSONObject: c),
                    let configuration = try? JSONDecoder().decode(ComparisonPartial.Configuration.self, from: data)
                {
                    header["fingerprint"] = configuration.fingerprint
                    edited[0] = header
                }
                let text = try edited.map {
                    String(
                        decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self)
                }
                let r = try expectRefused(text, [], "\(kind) = \(value)")
                peak = max(peak, r.peakKB)
                refused += 1
            }
        }
        #expect(refused > 400, "\(refused) refusals")
        #expect(try storedRuns() == runsBefore, "a refused merge stores no run")
        #expect(peak < 200_000)
    }

    // MARK: - The cases of the issue

    /// `lines` with the header's JSON (or the line `at`'s) changed by `edit`, the configuration's
    /// fingerprint recomputed.
    static func editing(_ lines: [String], at index: Int = 0, _ edit: (inout [String: Any]) -> Void) throws -> [String]
    {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(lines[index].utf8)) as? [String: Any])
        edit(&object)
        if index == 0, let c = object["configuration"],
            let configuration = try? JSONDecoder().decode(
                ComparisonPartial.Configuration.self, from: try JSONSerialization.data(withJSONObject: c))
        {
            object["fingerprint"] = configuration.fingerprint
        }
        var out = lines
        out[index] = String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        return out
    }

    static func configuration(_ key: String, _ value: Any) -> (inout [String: Any]) -> Void {
        { header in
            var c = header["configuration"] as! [String: Any]
            c[key] = value
            header["configuration"] = c
        }
    }

    static func total(_ policy: Int, _ key: String, _ value: @escaping (Any) -> Any) -> (inout [String: Any]) -> Void {
        { header in
            var totals = header["totals"] as! [[String: Any]]
            totals[policy][key] = value(totals[policy][key]!)
            header["totals"] = totals
        }
    }

    @Test func impossiblePartialsAreRefusedNamingTheLineAndField() throws {
        let (path, lines) = try partial()
        let runsBefore = try storedRuns()
        let last = lines.count - 1
        let shard = try #require(UserShard("1/2"))
        let stranger = try #require((0..<100).map { "stranger\($0)" }.first { !shard.contains($0) })
        let cases: [(String, [String], [String])] = [
            (
                "fresh above scored",
                try Self.editing(lines, Self.total(1, "fresh") { _ in [1_000_000, 1_000_000, 1_000_000] }),
                ["line 1: totals[1].fresh[0]", "more than scored"]
            ),
            (
                "scored -1", try Self.editing(lines, Self.total(2, "scored") { _ in -1 }),
                ["totals[2].scored: -1 is negative"]
            ),
            ("resamples -5", try Self.editing(lines, Self.configuration("resamples", -5)), ["configuration.resamples"]),
            (
                "resamples 10^12", try Self.editing(lines, Self.configuration("resamples", 1_000_000_000_000)),
                ["configuration.resamples"]
            ),
            ("warm-up -7", try Self.editing(lines, Self.configuration("warmUpDays", -7)), ["configuration.warmUpDays"]),
            (
                "min launches 0", try Self.editing(lines, Self.configuration("minLaunches", 0)),
                ["configuration.minLaunches"]
            ),
            (
                "a negative budget", try Self.editing(lines, Self.configuration("budgets", [-2, 1])),
                ["configuration.budgets[0]"]
            ),
            ("shard abc", try Self.editing(lines) { $0["shard"] = "abc" }, ["shard: 'abc' is not I/N"]),
            ("shard 5/3", try Self.editing(lines) { $0["shard"] = "5/3" }, ["shard: '5/3' is not I/N"]),
            (
                "an empty user name", try Self.editing(lines, at: last) { $0["name"] = "" },
                ["line \(last + 1): name: an empty name"]
            ),
            (
                "a user name with a control character", try Self.editing(lines, at: last) { $0["name"] = "a\u{1b}b" },
                ["name: a name with a control character"]
            ),
            (
                "a user name import refuses (2,000 bytes)",
                try Self.editing(lines, at: last) { $0["name"] = String(repeating: "n", count: 2_000) },
                ["name: a name longer than 1024 bytes"]
            ),
            (
                "a user not of the shard", try Self.editing(lines, at: last) { $0["name"] = stranger },
                ["is not of shard 1/2"]
            ),
            (
                "more users than it read",
                try Self.editing(lines) { h in
                    var p = h["platformInputs"] as! [String: Any]
                    p["users"] = 1
                    p["users_with_context"] = 0
                    h["platformInputs"] = p
                }, ["userLines", "the users it read"]
            ),
            (
                "a wrapped fetches per day",
                try Self.editing(
                    lines, Self.total(1, "fetchesPerDaySum") { _ in ["whole": -7_600_000_000_000_000, "fraction": 0] }),
                ["totals[1].fetchesPerDaySum", "negative"]
            ),
        ]
        for (what, edited, words) in cases { _ = try expectRefused(edited, ["crafted.gz: "] + words, what) }
        // A shard of 100,000 users whose header says it read 5: refused at the header, at once.
        let many = try Self.editing(lines) { $0["userLines"] = 100_000 }
        _ = try expectRefused(
            many + Array(repeating: lines[last], count: 20), ["userLines: 100000 is more than"], "many users")
        #expect(try storedRuns() == runsBefore, "no refused merge stored a run")
        // The partial as written still merges.
        #expect(try dir.fetchlab(["merge", path, "--db", db, "--no-store"]).status == 0)
    }

    @Test func aTuneFoldThatCannotBeIsRefused() throws {
        try dir.importGenerated(users: 8, days: 14, seed: 3, into: db)
        let tune = ["tune", "--db", db, "--family", "fixed", "--grid", "interval=1h,4h", "--folds", "1"]
        let path = dir.path("t.gz")
        let made = try dir.fetchlab(tune + ["--shard", "1/1", "--partial", path, "--format", "json"])
        #expect(made.status == 0, "\(made.err)")
        let text = String(decoding: try gzip(try bytes(path), arguments: ["-d", "-c"]), as: UTF8.self)
        var lines = text.split(separator: "\n").map(String.init)
        // The fold's header is the second line: a policy's scored launches set to −5.
        lines = try Self.editing(lines, at: 1, Self.total(0, "scored") { _ in -5 })
        let crafted = try dir.writeGzip("t-crafted.gz", lines.joined(separator: "\n") + "\n")
        let refused = try dir.fetchlab(tune + ["--search-from", crafted])
        expectOneLineError(refused, status: 64, ["t-crafted.gz: line 2: totals[0].scored: -5 is negative"])
        let runs = try dir.fetchlab(["runs", "--db", db])
        #expect(!runs.out.contains("tune"), "no tuning run stored: \(runs.out)")
    }

    /// Input that is no partial, however large, is refused within 200 MB: a gzip bomb, endless
    /// zeros and random bytes, a line without end, a name just under the line's limit.
    @Test func anyInputIsReadWithinBoundedMemory() throws {
        // 300 MB of zeros in 0.3 MB of gzip.
        let zeros = dir.path("zeros")
        #expect(FileManager.default.createFile(atPath: zeros, contents: Data(count: 300 << 20)))
        let bomb = dir.path("bomb.gz")
        _ = try run("/bin/sh", ["-c", "gzip -1 -c \(zeros) > \(bomb) && rm \(zeros)"])
        var longName = try partialLines()
        var user = try #require(
            try JSONSerialization.jsonObject(with: Data(longName[longName.count - 1].utf8)) as? [String: Any])
        user["name"] = String(repeating: "n", count: 30 << 20)
        longName[longName.count - 1] = String(
            decoding: try JSONSerialization.data(withJSONObject: user, options: [.sortedKeys]), as: UTF8.self)
        let named = try dir.writeGzip("long-name.gz", longName.joined(separator: "\n") + "\n")
        for (input, words) in [
            (bomb, ["line longer than"]), ("/dev/zero", ["line longer than"]),
            ("/dev/urandom", ["not a FetchLab partial"]),
            (named, ["name: a name longer than 1024 bytes"]),
        ] {
            let r = try measured(["merge", input, "--no-store"])
            #expect(r.status == 64, "\(input): \(r.status) \(r.err)")
            #expect(r.err.split(separator: "\n").count == 1, "\(input): \(r.err)")
            for word in words { #expect(r.err.contains(word), "\(input): \(r.err)") }
            #expect(r.peakKB < 200_000, "\(input): \(r.peakKB) kB")
        }
    }

    func partialLines() throws -> [String] { try partial().lines }
}
