import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every numeric option has a range checked at parse time (exit 64, one line naming the option),
/// negative numbers are read as values, and `generate` never leaves partial files behind.
@Suite struct BadValueTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("bad.sqlite") }

    /// A usage error: exit 64, one line on stderr naming `option`, nothing on stdout.
    func expectUsageError(
        _ arguments: [String], naming option: String, saying text: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let r = try dir.fetchlab(arguments)
        expectOneLineError(
            r, status: 64, prefix: "fetchlab: error: ", [option] + (text.map { [$0] } ?? []), context: "\(arguments)",
            sourceLocation: sourceLocation)
        #expect(!r.err.contains("Missing value"), "\(arguments): \(r.err)", sourceLocation: sourceLocation)
        #expect(r.out.isEmpty, sourceLocation: sourceLocation)
    }

    func partialFiles(in directory: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.filter { $0.hasSuffix(".partial") || $0.hasPrefix(".") }
    }

    /// An option of many values names them all in its one line (they used to be cut with the
    /// lines ArgumentParser lists them on).
    @Test func usageErrorsSayWhatToWrite() throws {
        let sort = try dir.fetchlab(["compare", "--db", db, "--sort", "nope"])
        #expect(sort.status == 64 && sort.err.split(separator: "\n").count == 1, "\(sort.err)")
        for value in ["band", "fresh", "share", "fetches", "energy", "given"] {
            #expect(sort.err.contains("'\(value)'"), "\(value): \(sort.err)")
        }
        for option in ["--user", "--app"] {
            try expectUsageError(["inspect", "--db", db, option, ""], naming: option, saying: "give a name")
        }
        // Written so, the value is checked as any other.
        try expectUsageError(["compare", "--db", db, "--budget=-1"], naming: "--budget", saying: "0.01 to 1000")
    }

    /// Issue 45: a negative number is read as the value of every numeric or duration option and
    /// refused with the option's range, never "Missing value" (it used to be read as an option).
    @Test func negativeNumbersAreReadAsValuesAndRefusedWithTheirRange() throws {
        let cases: [([String], String, String)] = [
            (["compare", "--budget", "-1"], "--budget", "0.01 to 1000"),
            (["compare", "--users", "-3"], "--users", "expected 1 to 1000000"),
            (["compare", "--bootstrap-seed", "-1"], "--bootstrap-seed", "0 to 18446744073709551615"),
            (["compare", "--resamples", "-5"], "--resamples", "expected 10 to 100000"),
            (["compare", "--tau", "-5m"], "--tau", "-5m is out of range"),
            (["compare", "--fetch-duration", "-3s"], "--fetch-duration", "out of range"),
            (["compare", "--cellular-tail-w", "-1"], "--cellular-tail-w", "expected 0 to 100"),
            (["compare", "--battery-wh", "-12"], "--battery-wh", "out of range"),
            (["compare", "--push-rate", "-3"], "--push-rate", "expected 0 to 3600"),
            (["compare", "--ios-wake-budget-max", "-1"], "--ios-wake-budget-max", "out of range"),
            (["compare", "--context-hold", "-6h"], "--context-hold", "out of range"),
            (["compare", "--default-battery", "-80"], "--default-battery", "expected 0 to 100"),
            (["tune", "--family", "fixed", "--samples", "-2"], "--samples", "expected 1 to 10000"),
            (["tune", "--family", "fixed", "--folds", "-2"], "--folds", "expected 1 to 20"),
            (["tune", "--family", "fixed", "--seed", "-1"], "--seed", "0 to 18446744073709551615"),
            (["tune", "--family", "fixed", "--time-budget", "-5s"], "--time-budget", "out of range"),
            (["import", "--busy-timeout", "-1", "x.csv"], "--busy-timeout", "0 to 86400"),
            // An `h` in the value is not the help flag (options of a shared group used to print
            // the help for it, exit 0).
            (["compare", "--fetch-budget", "-1h"], "--fetch-budget", "expected 1s to 1h"),
            (["tune", "--family", "fixed", "--ios-system-lead", "-2h"], "--ios-system-lead", "out of range"),
            (["predict", "--lead", "-2h"], "--lead", "expected 0s to 12h"),
            (["evaluate-predictors", "--freshness", "-1h"], "--freshness", "expected 1m to 1d"),
            (["import", "--session-gap", "-1h", "x.csv"], "--session-gap", "1s to 1d"),
            (["import", "--reorder-window", "-1h", "x.csv"], "--reorder-window", "0s to 7d"),
            (["import", "--earliest", "-5h", "x.csv"], "--earliest", "-5h"),
        ]
        for (arguments, option, text) in cases {
            try expectUsageError(arguments + ["--db", db], naming: option, saying: text)
        }
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func generateRefusesOutOfRangeNumbersAtParseTime() throws {
        let out = dir.path("gen")
        let cases: [([String], String, String)] = [
            (["--users", "-1"], "--users", "--users -1 is out of range: expected 1 to 1000000"),
            (["--users", "0"], "--users", "out of range"),
            (["--users", "99999999999"], "--users", "out of range"),
            (["--days", "100000"], "--days", "--days 100000 is out of range: expected 1 to 3660"),
            (["--days", "-3"], "--days", "out of range"),
            (["--users", "100000", "--days", "101"], "--users 100000 × --days 101", "at most 10,000,000"),
            (["--level", "0"], "--level", "expected 1 to 9"),
            (["--level", "12"], "--level", "expected 1 to 9"),
            (["--seed", "-5"], "--seed", "0 to 18446744073709551615"),
            (["--start", "1900-01-01"], "--start", "out of range"),
        ]
        for (args, option, text) in cases {
            try expectUsageError(["generate", "--output", out] + args, naming: option, saying: text)
        }
        #expect(!FileManager.default.fileExists(atPath: out))
        // The largest population passes the checks: the fleet benchmark's 100,000 users × 90 days,
        // and the cap itself (--print-config stops after them, writing nothing).
        for days in ["90", "100"] {
            let r = try dir.fetchlab([
                "generate", "--output", out, "--users", "100000", "--days", days, "--print-config",
            ])
            #expect(r.status == 0, "100000 x \(days): \(r.err)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func aFailingGenerateLeavesNoPartialFiles() throws {
        // A directory where a finished file should go: the rename fails after everything was written.
        // (--force: without it, generate refuses at once to replace what is at context.csv.gz.)
        let out = dir.path("blocked")
        try FileManager.default.createDirectory(
            atPath: out + "/context.csv.gz/inside", withIntermediateDirectories: true)
        let r = try dir.fetchlab(["generate", "--users", "3", "--days", "3", "--output", out, "--force"])
        #expect(r.status == 1, "\(r.err)")
        #expect(r.err.split(separator: "\n").count == 1, "\(r.err)")
        #expect(partialFiles(in: out).isEmpty, "\(partialFiles(in: out))")
        // Nothing else either: no finished file beside a missing one.
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["context.csv.gz"])
    }

    @Test func aGenerateStoppedBySIGTERMLeavesFinishedFilesOrNone() throws {
        let out = dir.path("stopped")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: fetchlabBinary())
        process.arguments = ["generate", "--users", "3000", "--days", "60", "--output", out]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait (by what happens, not by time) until it writes, or until it has finished.
        while process.isRunning && partialFiles(in: out).isEmpty { usleep(2_000) }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let left = (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
        #expect(partialFiles(in: out).isEmpty, "\(left)")
        let finished = ["content.csv.gz", "context.csv.gz", "truth.json", "usage.csv.gz"]
        #expect(left.isEmpty || left.sorted() == finished, "\(left)")
        if !left.isEmpty { #expect(process.terminationStatus == 0 || process.terminationReason == .uncaughtSignal) }
    }

    @Test func inspectPredictAndEvaluateRefuseOutOfRangeNumbers() throws {
        try expectUsageError(["inspect", "--db", db, "--top", "-1"], naming: "--top", saying: "expected 0 to 1000000")
        try expectUsageError(
            ["predict", "--db", db, "--horizon", "-5h"], naming: "--horizon", saying: "-5h is out of range")
        try expectUsageError(
            ["predict", "--db", db, "--horizon", "30d"], naming: "--horizon", saying: "expected 1m to 7d")
        try expectUsageError(["predict", "--db", db, "--lead", "48h"], naming: "--lead", saying: "expected 0s to 12h")
        try expectUsageError(
            ["predict", "--db", db, "--lead", "2h", "--horizon", "90m"], naming: "--lead 2h",
            saying: "shorter than --horizon 1h30m")
        try expectUsageError(["predict", "--db", db, "--threshold", "-0.5"], naming: "--threshold", saying: "0 to 1")
        try expectUsageError(["predict", "--db", db, "--threshold", "nan"], naming: "--threshold", saying: "0 to 1")
        try expectUsageError(["predict", "--db", db, "--freshness", "-30m"], naming: "--freshness")
        try expectUsageError(
            ["evaluate-predictors", "--db", db, "--users", "-1"], naming: "--users", saying: "out of range")
        try expectUsageError(
            ["evaluate-predictors", "--db", db, "--warm-up", "-2"], naming: "--warm-up", saying: "out of range")
        try expectUsageError(["evaluate-predictors", "--db", db, "--every", "0"], naming: "--every", saying: "1 to 24")
        try expectUsageError(
            ["evaluate-predictors", "--db", db, "--lead", "13h"], naming: "--lead", saying: "0s to 12h")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func importRefusesBadReadingOptions() throws {
        let file = try dir.write("u.csv", "timestamp,user,app\n2024-03-01T12:00:00Z,u,a\n")
        try expectUsageError(
            ["import", "--db", db, "--max-ratio", "-1", file], naming: "--max-ratio", saying: "0 = no limit")
        try expectUsageError(["import", "--db", db, "--max-size", "-5G", file], naming: "--max-size")
        try expectUsageError(
            ["import", "--db", db, "--session-gap", "-5m", file], naming: "--session-gap", saying: "1s to 1d")
        try expectUsageError(["import", "--db", db, "--reorder-window", "30d", file], naming: "--reorder-window")
        try expectUsageError(
            ["import", "--db", db, "--earliest", "2024-05-01T00:00:00Z", "--latest", "2024-01-01T00:00:00Z", file],
            naming: "--earliest 2024-05-01 is not before --latest 2024-01-01")
        try expectUsageError(
            ["import", "--db", db, "--map", "user=nonsense", file], naming: "--map user=nonsense",
            saying: "unknown field \"nonsense\"; expected one of timestamp, user, app, event, battery")
        #expect(!FileManager.default.fileExists(atPath: db))
    }

    @Test func aMappedColumnMustBeInTheHeader() throws {
        let file = try dir.write("u.csv", "timestamp,who,app\n2024-03-01T12:00:00Z,u,a\n")
        let r = try dir.fetchlab(["import", "--db", db, "--map", "Who=user", file])
        #expect(r.status == 1)
        #expect(r.err.split(separator: "\n").count == 1, "\(r.err)")
        #expect(
            r.err.contains("u.csv:1: --map Who=user: the header \"timestamp,who,app\" has no column \"Who\""),
            "\(r.err)")
        let ok = try dir.fetchlab(["import", "--db", db, "--map", "who=user", file])
        #expect(ok.status == 0, "\(ok.err)")
        #expect(ok.out.contains("1 new event,"), "\(ok.out)")
        // An alias of a field is a known field.
        let alias = try dir.fetchlab(["import", "--db", dir.path("b.sqlite"), "--map", "who=user_id", file])
        #expect(alias.status == 0, "\(alias.err)")
    }
}
