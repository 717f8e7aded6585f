import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

/// `compare --shard I/N --partial FILE` then `merge`, run as a user would: the merged shards give
/// the unsharded run's report byte for byte, and partials that do not make one run are refused.
@Suite struct MergeTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("fleet.sqlite") }

    /// A generated population with signals, device context and content updates (so the standard
    /// set includes push and every family has something to act on).
    func population(users: Int = 14) throws {
        try dir.importGenerated(
            users: users, days: 21, seed: 11, signals: true, logs: ["usage", "context", "content"], into: db)
    }

    func compare(_ options: [String], shard: String? = nil, partial: String? = nil) throws -> ProcessResult {
        let result = try dir.fetchlab(
            ["compare", "--db", db, "--format", "json", "--no-store", "--warm-up", "3", "--no-platform-lines"] + options
                + (shard.map { ["--shard", $0] } ?? []) + (partial.map { ["--partial", $0] } ?? []))
        #expect(result.status == 0, "\(result.err)")
        return result
    }

    /// Each shard of `n` replayed into a partial; the partials' paths.
    func partials(_ n: Int, _ options: [String], tag: String = "", force: Bool = false) throws -> [String] {
        try (1...n).map { i in
            let path = dir.path("shard\(tag)-\(i)-of-\(n).partial")
            let result = try compare(options + (force ? ["--force"] : []), shard: "\(i)/\(n)", partial: path)
            let settings = try #require(try result.json()["settings"] as? [String: Any])
            #expect(settings["shard"] as? String == "\(i)/\(n)", "a shard's report says which shard it is")
            #expect(result.err.contains("written to \(path)"), "\(result.err)")
            return path
        }
    }

    func merge(_ paths: [String], _ options: [String] = ["--db"]) throws -> ProcessResult {
        let extra = options == ["--db"] ? ["--db", db] : options
        return try dir.fetchlab(["merge"] + paths + ["--format", "json", "--no-store"] + extra)
    }

    @Test func mergingTheShardsGivesTheUnshardedRunByteForByte() throws {
        try population()
        let whole = try compare([])
        let object = try whole.json()
        #expect((object["settings"] as? [String: Any])?["shard"] == nil)
        #expect(object["timeline"] != nil, "the unsharded run has a timeline to compare")
        var two: [String] = []
        for n in [1, 2, 3, 5] {
            let paths = try partials(n, [])
            if n == 2 { two = paths }
            // In any order: the merge orders users as one run does.
            let merged = try merge(paths.reversed())
            #expect(merged.status == 0, "\(merged.err)")
            #expect(merged.out == whole.out, "\(n) shards merged differ from the unsharded run")
            #expect(merged.err.isEmpty, "\(merged.err)")
        }
        // Partials written again over the same files replace them (with --force: the output rule).
        #expect(try merge(try partials(2, [], force: true)).out == whole.out)
        // The user a database must hold for the timeline (what a fleet driver fetches).
        let user = try dir.fetchlab(["merge"] + two + ["--print-timeline-user"])
        #expect(user.status == 0, "\(user.err)")
        #expect(user.out == "\(try #require((object["timeline"] as? [String: Any])?["user"] as? String))\n")
        // A chosen timeline user is the one the database must hold.
        let chosen = try dir.fetchlab(
            ["merge"] + two + ["--print-timeline-user", "--db", db, "--trace-user", "someone-else"])
        #expect(chosen.status == 0, "\(chosen.err)")
        #expect(chosen.out == "someone-else\n")
        // Without a database there is no timeline; everything else is the same.
        let bare = try merge(two, [])
        #expect(bare.status == 0, "\(bare.err)")
        var expected = object
        expected["timeline"] = nil
        let got = try bare.json()
        #expect(got["timeline"] == nil)
        #expect(NSDictionary(dictionary: got).isEqual(to: expected))
    }

    @Test func perUserRowsAndPlatformFiguresMergeExactly() throws {
        try population(users: 10)
        let options = [
            "--per-user", "--platform", "ios", "--policies", "fixed(1h),predictive(15m,0.3),learned(2),oracle",
            "--resamples", "200",
        ]
        let whole = try compare(options)
        for n in [2, 4] {
            let merged = try merge(try partials(n, options, tag: "u"))
            #expect(merged.status == 0, "\(merged.err)")
            #expect(merged.out == whole.out, "\(n) shards merged differ from the unsharded run")
        }
    }

    @Test func partialsOfDifferentSettingsAreRefusedInOneLine() throws {
        try population(users: 6)
        let options = ["--policies", "fixed(1h),oracle", "--resamples", "50"]
        let first = dir.path("a.partial")
        let second = dir.path("b.partial")
        _ = try compare(options, shard: "1/2", partial: first)
        _ = try compare(options + ["--tau", "30m"], shard: "2/2", partial: second)
        let refused = try merge([first, second])
        #expect(refused.status == 64, "\(refused.err)")
        #expect(refused.err.contains("differ in --tau"), "\(refused.err)")
        #expect(refused.err.split(separator: "\n").count == 1, "\(refused.err)")
        #expect(refused.out.isEmpty)
    }

    @Test func overlappingPartialsAreRefused() throws {
        try population(users: 12)
        let options = ["--policies", "fixed(1h),oracle", "--resamples", "50"]
        let half = dir.path("half.partial")
        let quarter = dir.path("quarter.partial")
        _ = try compare(options, shard: "1/2", partial: half)
        _ = try compare(options, shard: "3/4", partial: quarter)
        // 3/4 holds the users whose hash is 2 mod 4: all of them are in 1/2 (0 mod 2).
        let overlap = try merge([half, quarter])
        #expect(overlap.status == 64, "\(overlap.err)")
        #expect(overlap.err.contains("overlaps"), "\(overlap.err)")
        #expect(overlap.err.split(separator: "\n").count == 1, "\(overlap.err)")
        let twice = try merge([half, half])
        #expect(twice.status == 64, "\(twice.err)")
        #expect(twice.err.contains("overlaps"), "\(twice.err)")
        // Unsharded partials hold named users: the same user twice is refused by name.
        let all = dir.path("all.partial")
        _ = try compare(options, partial: all)
        let users = try merge([all, half])
        #expect(users.status == 64, "\(users.err)")
        #expect(users.err.contains("is in both"), "\(users.err)")
    }

    @Test func aMissingShardIsSaid() throws {
        try population(users: 12)
        let options = ["--policies", "fixed(1h),oracle", "--resamples", "50"]
        let paths = try partials(3, options)
        let merged = try merge(Array(paths.prefix(2)))
        #expect(merged.status == 0, "\(merged.err)")
        #expect(merged.err.contains("shard 3/3 not given"), "\(merged.err)")
    }

    @Test func aFileThatIsNotAPartialIsOneLine() throws {
        try population(users: 6)
        let text = dir.path("notes.txt")
        try "hello\n".write(toFile: text, atomically: true, encoding: .utf8)
        let report = dir.path("report.json")
        let whole = try compare(["--policies", "fixed(1h)", "--resamples", "50"])
        try whole.stdout.write(to: URL(fileURLWithPath: report))
        for (path, says) in [
            (text, "not a FetchLab partial"), (report, "partial format 'none'"),
            (dir.path("missing.partial"), "missing.partial"),
        ] {
            let result = try merge([path])
            #expect(result.status != 0, "\(path)")
            #expect(result.err.contains(says), "\(result.err)")
            #expect(result.err.split(separator: "\n").count == 1, "\(result.err)")
            #expect(!result.err.contains("Fatal error"))
        }
    }

    /// A partial is JSON lines: its header says how many app lines (each app's sums) and user lines
    /// follow, one an app or user, so a file cut short at a line, or with lines added, or a partial
    /// of the older one-document format, is refused in one line instead of merged with some missing.
    @Test func aPartialIsAHeaderThenOneLinePerAppAndUser() throws {
        try population(users: 6)
        let path = dir.path("a.partial")
        _ = try compare(["--policies", "fixed(1h)", "--resamples", "50"], partial: path)
        let json = try gzip(try Data(contentsOf: URL(fileURLWithPath: path)), arguments: ["-d", "-c"])
        let lines = String(decoding: json, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "", "the last line ends with a line break")
        func object(_ line: Substring) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let header = try object(lines[0])
        let apps = try #require(header["appLines"] as? Int)
        let users = try #require(header["userLines"] as? Int)
        #expect(apps > 1 && users > 1 && lines.count == 1 + apps + users + 1, "\(lines.count) lines")
        #expect((header["users"] as? [Any])?.isEmpty == true, "the header holds no user")
        #expect((header["perApp"] as? [String: Any])?.isEmpty == true, "the header holds no app's sums")
        let bootstrap = try #require(header["bootstrap"] as? [String: Any], "the header holds the bootstrap's sums")
        #expect(bootstrap["resamples"] as? Int == 50 && bootstrap["policies"] as? Int == 1)
        var perApp: [String: Any] = [:]
        var names: [String] = []
        for line in lines[1...apps] {
            let app = try object(line)
            #expect((app["sums"] as? [Any])?.count == 1, "one policy's sums")
            names.append(try #require(app["app"] as? String))
            perApp[names.last!] = app["sums"]
        }
        #expect(names == names.sorted() && Set(names).count == apps, "each app once, by name")
        for line in lines[(apps + 1)...(apps + users)] {
            let user = try object(line)
            #expect(user["name"] is String && user["budget"] != nil)
        }
        let last = apps + users
        let short = try dir.writeGzip("short.partial", lines[..<last].joined(separator: "\n") + "\n")
        let shorter = try dir.writeGzip("shorter.partial", lines[..<apps].joined(separator: "\n") + "\n")
        let extra = try dir.writeGzip(
            "extra.partial", lines[...last].joined(separator: "\n") + "\n" + lines[last] + "\n")
        let negative = try dir.writeGzip(
            "negative.partial",
            ([Substring(lines[0].replacingOccurrences(of: "\"userLines\":\(users)", with: "\"userLines\":-1"))]
                + lines[1...])
                .joined(separator: "\n"))
        var repeated = Array(lines)
        repeated[2] = repeated[1]
        let twice = try dir.writeGzip("twice.partial", repeated.joined(separator: "\n"))
        // Version 2: the header of the format that kept the fixed baseline's grid figures per user.
        let version2 = try dir.writeGzip(
            "v2.partial",
            ([Substring(lines[0].replacingOccurrences(of: "fetchlab-partial 4", with: "fetchlab-partial 2"))]
                + lines[1...]).joined(separator: "\n"))
        // Version 3: the header of the format that kept each user's per-policy bootstrap figures.
        let version3 = try dir.writeGzip(
            "v3.partial",
            ([Substring(lines[0].replacingOccurrences(of: "fetchlab-partial 4", with: "fetchlab-partial 3"))]
                + lines[1...]).joined(separator: "\n"))
        // Version 1: the same partial as one JSON document, its apps' sums and users inline.
        var whole = header
        whole["format"] = "fetchlab-partial 1"
        whole["appLines"] = nil
        whole["userLines"] = nil
        whole["perApp"] = perApp
        whole["users"] = try lines[(apps + 1)...last].map { try JSONSerialization.jsonObject(with: Data($0.utf8)) }
        let old = try dir.writeGzip(
            "old.partial", String(decoding: try JSONSerialization.data(withJSONObject: whole), as: UTF8.self))
        for (file, says) in [
            (short, "cut short: \(users - 1) of the \(users) users its header gives"),
            (shorter, "cut short: \(apps - 1) of the \(apps) apps' sums its header gives"),
            (extra, "line \(last + 2): more lines than the \(last) its header gives"),
            (negative, "line 1: userLines: -1 is negative"),
            (twice, "line 3: not a line of a partial: app \(names[0]) twice"),
            (old, "partial format 'fetchlab-partial 1'; this fetchlab reads 'fetchlab-partial 4'"),
            (version2, "partial format 'fetchlab-partial 2'; this fetchlab reads 'fetchlab-partial 4'"),
            (version3, "partial format 'fetchlab-partial 3'; this fetchlab reads 'fetchlab-partial 4'"),
        ] {
            let result = try merge([file], [])
            #expect(result.status == 64, "\(result.err)")
            #expect(result.err.contains(says), "\(result.err)")
            #expect(result.err.split(separator: "\n").count == 1, "\(result.err)")
        }
        let intact = try merge([path], [])
        #expect(intact.status == 0, "\(intact.err)")
    }

    @Test func anAlteredPartialIsRefused() throws {
        try population(users: 6)
        let path = dir.path("a.partial")
        _ = try compare(["--policies", "fixed(1h)", "--resamples", "50"], partial: path)
        // Another seed written into the settings without the fingerprint that goes with them.
        let json = try gzip(try Data(contentsOf: URL(fileURLWithPath: path)), arguments: ["-d", "-c"])
        var text = String(decoding: json, as: UTF8.self)
        #expect(text.contains("\"seed\":1"))
        text = text.replacingOccurrences(of: "\"seed\":1", with: "\"seed\":2")
        let altered = try dir.writeGzip("altered.partial", text)
        let result = try merge([altered])
        #expect(result.status == 64, "\(result.err)")
        #expect(result.err.contains("the file was altered"), "\(result.err)")
        // Sums edited past what the settings give (a user's app with no sums): refused, not a crash.
        let original = String(decoding: json, as: UTF8.self)
        #expect(original.contains("\"apps\":[\""))
        let edited = try dir.writeGzip(
            "edited.partial",
            original.replacingOccurrences(of: "\"apps\":[\"", with: "\"apps\":[\"no.such.app\",\""))
        let inconsistent = try merge([edited], [])
        #expect(inconsistent.status == 64, "\(inconsistent.err)")
        // (the user's pairs no longer those of its budget sums: the line, the field and the problem)
        #expect(inconsistent.err.contains("budget.pairs: "), "\(inconsistent.err)")
        #expect(inconsistent.err.contains(": line "), "\(inconsistent.err)")
        #expect(inconsistent.err.split(separator: "\n").count == 1, "\(inconsistent.err)")
    }
}
