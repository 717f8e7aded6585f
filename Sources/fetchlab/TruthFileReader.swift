import ArgumentParser
import FetchLabPredict
import FetchLabSynth
import Foundation

/// Reads a generator's truth.json for `evaluate-predictors --truth`.
enum TruthFileReader {
    static func read(_ path: String) throws -> TruthPeaks {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("--truth: cannot read \(path)")
        }
        let file: TruthFile
        do { file = try JSONDecoder().decode(TruthFile.self, from: data) } catch {
            throw CommandFailure("--truth: \(path) is not a fetchlab generate truth file")
        }
        guard let start = file.startDay else { throw CommandFailure("--truth: bad start date in \(path)") }
        return TruthPeaks(
            startDay: start,
            users: file.users.map { u in (u.name, { day, weekend in u.routinePeaks(onDay: day, weekend: weekend) }) })
    }
}
