import ArgumentParser
import FetchLabCore
import FetchLabIngest
import FetchLabPredict
import FetchLabResults
import FetchLabSimulation
import FetchLabStore
import FetchLabSynth
import FetchLabTerminal
import FetchLabWorkflows
import Testing

@testable import fetchlab

/// Every module's one error type has one shape (`FetchLabError`: code, message, context, cause)
/// and is reported in one place, `Exit.reporting`: a usage mistake becomes ArgumentParser's usage
/// error (exit 64), anything else one line and exit 1.
@Suite struct ErrorReportingTests {
    enum Outcome: Equatable { case usage(String), failure, other }

    func outcome(of error: any Error) -> Outcome {
        // The line a failure prints is collected, not written to the test run's stderr.
        var lines: [String] = []
        do {
            _ = try Exit.reporting(report: { lines.append($0) }) { () throws -> Int in throw error }
            return .other
        } catch let error as ValidationError {
            return .usage(error.message)
        } catch let exit as ExitCode where exit == ExitCode(Exit.failure) {
            #expect(lines == [Terminal.oneLine("\(error)")], "\(error)")
            return .failure
        } catch {
            return .other
        }
    }

    @Test func eachModulesErrorIsReportedAtTheRootByItsKind() {
        let failures: [any FetchLabError] = [
            IngestError(.io, source: "logs.csv.gz", message: "cannot read"),
            IngestError(.usage, source: "logs.csv", line: 3, message: "foreground logs name no user"),
            TimestampError(message: "timestamp \"x\" is not ISO-8601 or epoch"),
            StoreError(.busy, "db.sqlite: locked"),
            SynthError("out: cannot write usage.csv.gz"),
            SynthError("users.count: missing", code: .config),
            TuningError("no launch is scored"),
            SpoolError("cannot read the per-user rows back"),
            PredictionError.noLaunchesBeforeOrigin(user: "u1"),
            WorkflowError(.noData, "db.sqlite: no launches"),
            CommandFailure("db.sqlite: run 7 not found"),
        ]
        for error in failures {
            #expect(!error.isUsageError, "\(error)")
            #expect(outcome(of: error) == .failure, "\(error)")
        }
        let usage: [any FetchLabError] = [
            TuningError("grid 'x' must be parameter=value,value,…", code: .invalid),
            PolicyRegistry.ParseError(message: "unknown policy 'fixd'"),
            SynthError("--users must be at least 1", code: .usage),
            WorkflowError(.usage, "no user named u9"),
        ]
        for error in usage {
            #expect(error.isUsageError, "\(error)")
            #expect(outcome(of: error) == .usage(error.description), "\(error)")
        }
    }

    @Test func theShapeCarriesWhereAndWhatIsUnderneath() {
        let ingest = IngestError(.malformedRow, source: "a.csv", line: 12, message: "3 fields, expected 4")
        #expect(ingest.context == "a.csv:12")
        #expect(ingest.codeName == "malformedRow")
        #expect(ingest.description == "a.csv:12: 3 fields, expected 4")
        #expect(IngestError(.compression, source: "a.gz", offset: 40, message: "bad").context == "a.gz: byte 40")
        let store = StoreError(.corrupt, "db.sqlite: damaged")
        let workflow = WorkflowError(store)
        #expect(workflow.code == .store)
        #expect(workflow.description == store.description)
        #expect((workflow.cause as? StoreError)?.code == .corrupt)
        #expect(workflow.context == nil)
    }
}
