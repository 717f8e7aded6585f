import FetchLabCore
import FetchLabPredict
import FetchLabResults
import FetchLabSynth
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabWorkflows

/// The workflow of `generate` and the truth file `evaluate-predictors --truth` reads, on real
/// files: what the commands do without their options or output.
@Suite struct GenerationTests {
    let dir = TemporaryDirectory()

    @Test func aConfigFileOverridesTheDefaultsItNames() throws {
        #expect(try Generation.population(signals: false, config: nil) == PopulationConfig())
        #expect(try Generation.population(signals: true, config: nil) == PopulationConfig.withSignals)
        let defaults = try JSONEncoder().encode(PopulationConfig())
        let file = try dir.write("config.json", String(decoding: defaults, as: UTF8.self))
        #expect(try Generation.population(signals: false, config: file) == PopulationConfig())
        #expect(
            performing: { try Generation.population(signals: false, config: dir.path("missing.json")) },
            throws: { "\($0)".hasSuffix("missing.json: cannot read the config file") })
        let typo = try dir.write("typo.json", #"{"userz": 3}"#)
        #expect(
            performing: { try Generation.population(signals: false, config: typo) },
            throws: { ($0 as? WorkflowError)?.code == .failed && "\($0)".contains("not a population config: userz") })
    }

    @Test func theFilesWrittenGiveTheTruthBack() throws {
        var options = GenerateOptions(
            users: 3, days: 5, seed: 7, startDay: CivilDate(year: 2024, month: 3, day: 4).daysSince1970)
        options.command = "fetchlab generate --users 3 --days 5 --seed 7 --start 2024-03-04"
        let out = dir.path("population")
        let done = UsersDone()
        let summary = try Generation.write(options, to: out) { done.set($0) }
        #expect(summary.users == 3)
        #expect(done.value == 3)
        for file in ["usage.csv.gz", "context.csv.gz", "content.csv.gz", "truth.json"] {
            #expect(FileManager.default.fileExists(atPath: "\(out)/\(file)"), "\(file)")
        }
        let truth = try PredictorEvaluation.truth(at: "\(out)/truth.json")
        #expect(truth.startDay == options.startDay)
        #expect(
            performing: { try PredictorEvaluation.truth(at: "\(out)/usage.csv.gz") },
            throws: { "\($0)" == "--truth: \(out)/usage.csv.gz is not a fetchlab generate truth file" })
        #expect(
            performing: { try PredictorEvaluation.truth(at: dir.path("none.json")) },
            throws: { "\($0)".hasPrefix("--truth: cannot read") })
    }
}

/// The users done, as the writer reports them (from its threads).
final class UsersDone: @unchecked Sendable {
    private let lock = NSLock()
    private var done = 0
    func set(_ n: Int) { lock.withLock { done = max(done, n) } }
    var value: Int { lock.withLock { done } }
}
