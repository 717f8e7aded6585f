import FetchLabCore
import Foundation
import Testing

@testable import FetchLabSimulation

/// The Poisson bootstrap over users: weights from a hash of (seed, name, resample), sums that
/// shards add exactly, partials whose bootstrap does not grow with their users.
@Suite struct PoissonBootstrapTests {
    /// A user's weights are the same on every call (no process-seeded hash), resample r's weight
    /// does not depend on how many are drawn, and other names or seeds draw otherwise.
    @Test func weightsAreDeterministicAndDependOnTheNameAndSeedOnly() {
        let a = PoissonBootstrap.weights(seed: 1, user: "alice", count: 200)
        #expect(a == PoissonBootstrap.weights(seed: 1, user: "alice", count: 200))
        #expect(Array(a.prefix(50)) == PoissonBootstrap.weights(seed: 1, user: "alice", count: 50))
        #expect(a != PoissonBootstrap.weights(seed: 1, user: "alicf", count: 200))
        #expect(a != PoissonBootstrap.weights(seed: 2, user: "alice", count: 200))
        // Fixed values: a change of the hash, the stream or the table changes every interval.
        #expect(PoissonBootstrap.weights(seed: 1, user: "u0", count: 12) == [1, 2, 2, 0, 0, 0, 3, 2, 0, 0, 0, 1])
    }

    /// Over many users and resamples the weights are Poisson(1): mean and variance 1, P(0) = e⁻¹.
    /// (Deterministic draws: the tolerances hold or fail on every run alike.)
    @Test func weightsArePoissonOfMeanOne() {
        var (n, sum, squares, zeros) = (0.0, 0.0, 0.0, 0.0)
        for u in 0..<2_000 {
            for w in PoissonBootstrap.weights(seed: 7, user: "user-\(u)", count: 100) {
                let x = Double(w)
                n += 1
                sum += x
                squares += x * x
                if w == 0 { zeros += 1 }
            }
        }
        let mean = sum / n
        #expect(abs(mean - 1) < 0.01, "mean \(mean)")
        #expect(abs(squares / n - mean * mean - 1) < 0.02, "variance \(squares / n - mean * mean)")
        #expect(abs(zeros / n - exp(-1.0)) < 0.005, "P(0) \(zeros / n)")
    }

    /// `ExactSum.times` is adding the sum that many times.
    @Test func anExactSumTimesACountIsItsRepeatedSum() {
        for term in [0.0, 1.5, 0.1, 123.456789, 1e-9, 7.0 / 3] {
            for count: UInt32 in [0, 1, 2, 3, 17, 1_000] {
                var repeated = ExactSum()
                for _ in 0..<count { repeated += ExactSum(term) }
                #expect(ExactSum(term).times(count) == repeated, "\(term) × \(count)")
            }
        }
    }

    static func run(_ users: [UserHistory], policies: [any FetchPolicy], keep: Bool = false) -> ComparisonRun {
        var run = Simulator().comparison(policies: policies)
        run.resamples = 200
        run.keepsUsers = keep
        run.add(users)
        return run
    }

    /// Shards' bootstrap sums added in any order are the unsharded run's, and merged partials give
    /// its report: the same draws, so the same intervals.
    @Test func shardsSumToTheUnshardedBootstrap() throws {
        let policies = try PolicyRegistry.parseList("never, fixed(1h), predictive(15m,0.3)")
        let population = BudgetCurveTests.population(users: 30).sorted {
            $0.user.name.utf8.lexicographicallyPrecedes($1.user.name.utf8)
        }
        let whole = Self.run(population, policies: policies)
        let shards = (1...3).map { i in
            Self.run(population.filter { UserShard(index: i, of: 3)!.contains($0.user.name) }, policies: policies)
        }
        for order in [[0, 1, 2], [2, 0, 1]] {
            var sum = PoissonBootstrap(resamples: 200, policies: policies.count)
            for k in order {
                let b = try #require(shards[k].budget?.bootstrap)
                #expect(sum.problemAdding(b) == nil)
                sum.add(b)
            }
            #expect(sum == whole.budget?.bootstrap)
        }
        var merged: ComparisonRun? = nil
        for shard in (1...3).reversed() {
            let users = population.filter { UserShard(index: shard, of: 3)!.contains($0.user.name) }
            let partial = Self.run(users, policies: policies, keep: true).partial(shard: nil, source: "test")
            if merged == nil { merged = try ComparisonRun(merging: partial.configuration, policies: policies) }
            try merged!.absorb(partial)
        }
        try merged!.finishMerge()
        let report = whole.report()
        #expect(merged!.report() == report)
        #expect(report.budget?.intervalOver == .users && report.policies[2].metrics.freshInterval != nil)
    }

    /// A partial's bootstrap sums are resamples × policies, whatever its users: the same bytes for
    /// 12 users and for 48; and its users' lines carry no per-policy bootstrap figures.
    @Test func aPartialsBootstrapDoesNotGrowWithItsUsers() throws {
        let policies = try PolicyRegistry.parseList("never, fixed(1h), fixed(2h), predictive(15m,0.3)")
        let population = BudgetCurveTests.population(users: 48)
        func partial(_ users: Int) throws -> (bootstrap: Int, userBudget: Int) {
            let p = Self.run(Array(population.prefix(users)), policies: policies, keep: true)
                .partial(shard: nil, source: "test")
            let b = try #require(p.bootstrap)
            #expect(b.resamples == 200 && b.policies == policies.count)
            // The base-64 figures' length (JSON escapes their slashes, as many as the draws give).
            let json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(b)) as? [String: Any])
            let bytes = ["counts", "fresh", "fetchesPerDay"].reduce(0) { $0 + ((json[$1] as? String)?.utf8.count ?? 0) }
            let u = try #require(p.users.last?.budget)
            #expect(u.fresh.isEmpty && u.fetchesPerDay.isEmpty && u.days == nil)
            return (bytes, try JSONEncoder().encode(u).count)
        }
        let (small, large) = (try partial(12), try partial(48))
        #expect(small.bootstrap == large.bootstrap)
        #expect(small.bootstrap > 201 * policies.count * 24)
    }

    /// A partial's bootstrap sums read back from its JSON are the same sums; sums of another shape
    /// or that would overflow are refused, not added.
    @Test func bootstrapSumsRoundTripAndAreCheckedBeforeAdding() throws {
        let policies = try PolicyRegistry.parseList("never, fixed(1h)")
        let run = Self.run(BudgetCurveTests.population(users: 12), policies: policies)
        let b = try #require(run.budget?.bootstrap)
        let back = try JSONDecoder().decode(PoissonBootstrap.self, from: try JSONEncoder().encode(b))
        #expect(back == b)
        #expect(b.problemAdding(PoissonBootstrap(resamples: 100, policies: 2)) != nil)
        #expect(b.problemAdding(PoissonBootstrap(resamples: 200, policies: 3)) != nil)
        var json = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(b)) as? [String: Any])
        json["fresh"] = Data(count: 8).base64EncodedString()
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(PoissonBootstrap.self, from: JSONSerialization.data(withJSONObject: json))
        }
    }
}
