import FetchLabCore
import FetchLabResults
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabIngest

/// A stateful line format is one type conforming to ``LineFormat``: the reader asks it what it
/// needs (is a line a row, may the names restart, what is left at the end, did the file fail)
/// instead of testing which format it reads.
@Suite struct LineFormatTests {
    /// A format only this test has: each line is an app name; a run of lines of one app is one
    /// launch (at the run's first line number, in seconds), written when the run ends, so the state
    /// holds an app id in between. `bad` is a reject; `stop` fails the file.
    struct RunsFormat: LineFormat {
        static func recognises(firstLine line: [UInt8]) -> Bool { false }
        static func fileUser(source: String) throws(IngestError) -> String? { "runner" }
        /// Whether the pending run keeps the name tables (false: a format that forgets to say so).
        var keepsNames = true
        private var run: (app: Int32, line: Int)?
        private(set) var failure: String?

        init(options: ReadOptions, source: String) {}

        var everyLineIsARow: Bool { true }
        var namesMayRestart: Bool { !keepsNames || run == nil }

        mutating func decode(
            _ line: UnsafeRawBufferPointer, line number: Int, unterminated: Bool, into sink: inout RecordSink
        ) throws(RowProblem) {
            if line.elementsEqual("bad".utf8) { throw RowProblem("a bad line") }
            if line.elementsEqual("stop".utf8) {
                let message = "stopped: the test's format cannot go on"
                failure = message
                throw RowProblem(message)
            }
            let app = try sink.app(line)
            sink.batch.counts.accepted += 1
            if let run, run.app == app {
                sink.batch.counts.merged += 1
                return
            }
            finish(into: &sink)
            run = (app, number)
        }

        mutating func finish(into sink: inout RecordSink) {
            guard let run else { return }
            sink.batch.usage.append(
                UsageEvent(
                    time: .epoch + .days(19_800) + .seconds(Int64(run.line)), user: sink.fixedUser ?? 0, app: run.app,
                    kind: .launch, utcOffset: nil))
            self.run = nil
        }
    }

    struct Read {
        var launches: [(app: String, line: Int)] = []
        var rejects: [RejectedRow] = []
        var counts = ReadCounts()
        var restarts = 0
    }

    /// Reads `lines` with `RunsFormat` in place of the format the reader detected (foreground,
    /// stated), two records a batch and one name kept, so the name tables want to restart often.
    func readRuns(_ lines: [String], keepsNames: Bool = true) throws -> Read {
        let dir = TemporaryDirectory()
        var options = ReadOptions()
        options.format = .foreground
        options.user = "u"
        options.batchSize = 2
        let reader = try LogReader(
            path: try dir.write("runs.log", lines.joined(separator: "\n") + "\n"), options: options)
        var format = RunsFormat(options: options, source: "runs.log")
        format.keepsNames = keepsNames
        reader.lineFormat = format
        reader.maxNamesKept = 1
        var apps: [String] = []
        var out = Read()
        while let batch = try reader.nextBatch() {
            if batch.restartsNames {
                out.restarts += 1
                apps = []
            }
            apps += batch.newApps
            // A launch whose id outlived its name table has no name ("?").
            out.launches += batch.usage.map {
                (apps.indices.contains(Int($0.app)) ? apps[Int($0.app)] : "?", Int($0.time - .days(19_800)) / 1_000_000)
            }
            out.rejects += batch.rejects
            out.counts += batch.counts
        }
        return out
    }

    @Test func theReaderDrivesAFormatOnlyThroughTheProtocol() throws {
        let read = try readRuns(["a", "a", "", "b", "bad", "b", "b", "c", "a"])
        // Line 1 (read at open) is decoded too; blank lines are not; the last run is the format's
        // `finish` at the end of the file.
        #expect(read.launches.map(\.app) == ["a", "b", "c", "a"])
        #expect(read.launches.map(\.line) == [1, 4, 8, 9])
        #expect(read.rejects.map(\.line) == [5])
        #expect(read.rejects.first?.reason == "a bad line")
        // `everyLineIsARow`: every non-blank line is counted by the reader.
        #expect(read.counts.rows == 8 && read.counts.accepted == 7 && read.counts.rejected == 1)
        #expect(read.counts.merged == 3)
    }

    @Test func theNamesRestartOnlyWhenTheFormatHoldsNoIDs() throws {
        let lines = ["a", "b", "c", "d", "e", "f"]
        // Every line leaves a run pending (an app id): the tables are never started again, and
        // every launch keeps its name.
        let held = try readRuns(lines)
        #expect(held.restarts == 0)
        #expect(held.launches.map(\.app) == lines)
        // The same format saying its ids may be forgotten: the tables start again between batches.
        let forgotten = try readRuns(lines, keepsNames: false)
        #expect(forgotten.restarts > 0)
    }

    @Test func aFailureOfTheFileIsAUsageErrorNotAReject() throws {
        let error = #expect(throws: IngestError.self) { try readRuns(["a", "b", "stop", "c"]) }
        #expect(error?.code == .usage)
        #expect(
            error?.description.hasSuffix("runs.log:3: stopped: the test's format cannot go on") == true,
            "\(String(describing: error))")
    }

    // MARK: What each line format declares

    @Test func theLineFormatsAreNamedInOnePlace() {
        #expect(LogFormat.allCases.filter { $0.lineFormat != nil } == [.foreground, .usagestats])
        for format in LogFormat.allCases {
            // A format is read one way: delimited rows, lines with state, or (Knowledge store) neither.
            #expect(format.lineFormat == nil || format.delimited == nil, "\(format)")
        }
        #expect(LogFormat.knowledgeC.lineFormat == nil && LogFormat.knowledgeC.delimited == nil)
    }

    @Test func foregroundLogsNameTheirUserAndHoldIDsWhileSamplesWait() throws {
        #expect(try ForegroundFormat.fileUser(source: "logs/alice.log.gz") == "alice")
        let error = #expect(throws: IngestError.self) { try ForegroundFormat.fileUser(source: "-") }
        #expect(error?.code == .usage)
        #expect(error?.description.contains("foreground logs name no user: give one with --user NAME") == true)
        #expect(ForegroundFormat.recognises(firstLine: Array("2024-03-01 12:00:00,com.a".utf8)))
        #expect(!ForegroundFormat.recognises(firstLine: Array("timestamp,app".utf8)))

        var format = ForegroundFormat(options: ReadOptions(), source: "alice.log")
        #expect(format.everyLineIsARow && format.failure == nil && format.namesMayRestart)
        var sink = RecordSink(options: ReadOptions())
        try Array("2024-03-01 12:00:00,com.a".utf8).withUnsafeBytes { line in
            try format.decode(line, line: 1, unterminated: false, into: &sink)
        }
        // The sample waits for the reorder window: its app id must survive.
        #expect(!format.namesMayRestart)
        #expect(sink.batch.usage.isEmpty)
        format.finish(into: &sink)
        #expect(format.namesMayRestart)
        #expect(sink.batch.usage.count == 1)
    }

    @Test func usagestatsDumpsCountTheirOwnRowsAndKeepTheirNames() throws {
        #expect(try UsageStatsFormat.fileUser(source: "-") == nil)
        #expect(UsageStatsFormat.recognises(firstLine: Array("DUMP OF SERVICE usagestats:".utf8)))
        let format = UsageStatsFormat(options: ReadOptions(), source: "-")
        #expect(format.stem == "usagestats")
        #expect(UsageStatsFormat(options: ReadOptions(), source: "dumps/pixel.txt").stem == "pixel")
        #expect(!format.everyLineIsARow)
        // Its per-user state holds user and app ids from the first line to the last.
        #expect(!format.namesMayRestart)
        #expect(format.failure == nil)
    }
}
