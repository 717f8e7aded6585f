import FetchLabCore
import FetchLabResults
import Foundation
import Testing

@testable import FetchLabSimulation

/// A tune's search spread over shards of its users: the shards' partials, merged, give the run
/// one process makes; partials that are not exactly one search's shards are refused.
@Suite struct TuneShardTests {
    private func users(_ count: Int) -> [UserHistory] { randomUsers(count, seed: 7) }

    private func source(_ all: [UserHistory]) -> Tuner.UserBatches {
        { body in
            body(Array(all.prefix(5)))
            body(Array(all.dropFirst(5)))
        }
    }

    private func tuner(split: TuningSplit, method: SearchMethod = .grid, grid: String? = nil) throws -> Tuner {
        var t = Tuner(
            simulator: Simulator(evaluation: evaluation(warmUp: 1, minLaunches: 20)),
            space: try SearchSpace.parse(family: "predictive", grid: grid),
            objective: Objective(metric: .fresh(.minutes(15)), maximize: true),
            constraints: try TuningConstraint.parseList("fetches<=6"))
        t.method = method
        t.split = split
        t.samples = 4
        return t
    }

    /// `partial` written as a file's lines and read back, as `tune --partial` and `--search-from` do.
    private func roundTrip(_ partial: TuneSearchPartial) throws -> TuneSearchPartial {
        let header = try JSONDecoder().decode(
            TuneSearchPartial.Header.self, from: JSONEncoder().encode(partial.header))
        let folds = try partial.folds.map { fold in
            var lines: [Data] = []
            try fold.jsonLines { lines.append($0) }
            var read = try ComparisonPartial(headerLine: lines[0])
            for line in lines.dropFirst() { try read.read(line: line) }
            #expect(read.linesToRead == 0)
            return read
        }
        return TuneSearchPartial(header: header, folds: folds)
    }

    private func shards(_ tuner: Tuner, _ source: @escaping Tuner.UserBatches, of n: Int) throws
        -> [TuneSearchPartial]
    {
        try (1...n).map { try roundTrip(tuner.searchPartial(source, shard: UserShard(index: $0, of: n)!)) }
    }

    static let cases: [(TuningSplit, SearchMethod)] = [
        (.time(trainUntil: nil, folds: 1), .grid), (.time(trainUntil: nil, folds: 2), .grid), (.users, .grid),
        (.time(trainUntil: nil, folds: 1), .random),
    ]

    @Test(arguments: cases)
    func shardsMergedGiveTheRunOneProcessMakes(split: TuningSplit, method: SearchMethod) throws {
        let source = source(users(12))
        let tuner = try tuner(split: split, method: method)
        let plain = try tuner.runKeepingHeldOut(source).result
        // The groups of users are on, so every fold's per-group figures come through the merge.
        #expect(plain.folds.allSatisfy { $0.groups.contains { $0.kind == .users } })
        for n in [1, 2, 3, 5] {
            let partials = try shards(tuner, source, of: n)
            // Each shard replayed its own users only, and together they replayed every one once.
            for p in partials {
                let shard = UserShard(p.header.shard)!
                #expect(p.folds.allSatisfy { $0.userNames.allSatisfy(shard.contains) })
            }
            for fold in plain.folds.indices {
                let names = partials.flatMap { $0.folds[fold].userNames }
                #expect(names.count == Set(names).count)
                #expect(names.count == plain.folds[fold].trainUsers)
            }
            let merged = try tuner.runKeepingHeldOut(source, search: partials.reversed()).result
            #expect(merged == plain, "\(n) shards")
        }
    }

    @Test func partialsThatAreNotOneSearchsShardsAreRefused() throws {
        let source = source(users(12))
        let tuner = try tuner(split: .time(trainUntil: nil, folds: 1))
        let three = try shards(tuner, source, of: 3)
        func refusal(_ partials: [TuneSearchPartial], with t: Tuner? = nil) -> String? {
            do {
                _ = try (t ?? tuner).runKeepingHeldOut(source, search: partials)
                return nil
            } catch let error as TuningError {
                return error.message
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal([three[0], three[2]])?.contains("shard 2/3 missing") == true)
        #expect(refusal(three + [three[1]])?.contains("shard 2/3 is given twice") == true)
        let two = try shards(tuner, source, of: 2)
        #expect(refusal([three[0], three[1], two[1]])?.contains("is one of 2 shards") == true)
        // Another grid, another population, another split: not this search.
        let other = try self.tuner(split: .time(trainUntil: nil, folds: 1), grid: "lead=5m;threshold=0.2,0.3")
        #expect(refusal(three, with: other)?.contains("settings are not this run's") == true)
        #expect(refusal(try shards(tuner, self.source(users(11)), of: 1))?.contains("another population") == true)
        let folds = try self.tuner(split: .time(trainUntil: nil, folds: 2))
        #expect(refusal(three, with: folds)?.contains("folds") == true)
        // A coordinate search cannot be sharded, nor merged.
        let coordinate = try self.tuner(split: .time(trainUntil: nil, folds: 1), method: .coordinate)
        #expect(throws: TuningError.self) { try coordinate.searchPartial(source, shard: UserShard(index: 1, of: 2)!) }
        #expect(refusal(three, with: coordinate)?.contains("cannot be sharded") == true)
        // A fold's partial that is not its header's (a file edited by hand).
        var edited = three[1]
        edited.folds[0].fingerprint = "0000000000000000"
        #expect(refusal([three[0], edited, three[2]])?.contains("its partial's settings are not its header's") == true)
        #expect(refusal(three) == nil)
    }
}
