import FetchLabCore
import FetchLabPredict
import FetchLabResults

/// The learned family's next-use model judged as a predictor (`evaluate-predictors`): replayed on
/// each user's whole log as `learned(B)` replays it (its questions do not depend on the budget),
/// every question asked from the start of held-out time on is scored against what happened —
/// Brier score and reliability of "a launch of the app within τ", and, at each launch of another
/// app, whether the next launch that needs a fetch (a launch more than τ after its app's previous
/// one) is of the app the model ranked first (HR@1), among its first five (HR@5), and the
/// reciprocal of its rank (MRR).
public enum LearnedModelEvaluation {
    /// Scores the model on held-out time.
    /// - Parameters:
    ///   - histories: the users, each replayed whole.
    ///   - evaluation: the protocol: its τ (the question's) and its evaluated pairs.
    ///   - heldOutStart: the first instant scored for a user (nil: none of the user's).
    /// - Returns: the scores summed over every user.
    public static func evaluate(
        _ histories: [UserHistory], evaluation: EvaluationProtocol = EvaluationProtocol(),
        heldOutStart: @Sendable (UserHistory) -> Instant?
    ) -> LearnedModelScore {
        let parts = ParallelMap.map(histories) { h -> Tally in
            guard let start = heldOutStart(h), let window = evaluation.window(of: h) else { return Tally() }
            let user = UserSetup(history: h, window: window, evaluation: evaluation, context: ContextDefaults())
            return score(user, from: start, tau: evaluation.primaryTau)
        }
        var total = Tally()
        for t in parts { total.add(t) }
        return total.score(tau: evaluation.primaryTau)
    }

    /// The questions of a replay, in the order asked.
    struct Questions: QuestionLog {
        var pair: [Int32] = []
        var time: [Instant] = []
        var probability: [Double] = []
        var atLaunch: [Bool] = []

        mutating func asked(pair p: Int, at t: Instant, probability q: Double, atLaunch launch: Bool) {
            pair.append(Int32(p))
            time.append(t)
            probability.append(q)
            atLaunch.append(launch)
        }
    }

    /// Sums of the scores, mergeable across users.
    struct Tally: Sendable {
        var reliability = ReliabilityTable()
        var questions = 0
        var squaredError = 0.0
        var hits = 0
        var ranked = 0
        var top1 = 0
        var top5 = 0
        var reciprocalRanks = 0.0

        mutating func add(_ other: Tally) {
            reliability.merge(other.reliability)
            questions += other.questions
            squaredError += other.squaredError
            hits += other.hits
            ranked += other.ranked
            top1 += other.top1
            top5 += other.top5
            reciprocalRanks += other.reciprocalRanks
        }

        func score(tau: Microseconds) -> LearnedModelScore {
            let n = questions
            let base = n > 0 ? Double(hits) / Double(n) : 0
            return LearnedModelScore(
                tau: tau, questions: n, brier: n > 0 ? squaredError / Double(n) : nil,
                baseRateBrier: n > 0 ? base * (1 - base) : nil, reliability: reliability,
                rankedLaunches: ranked, hr1: ranked > 0 ? Double(top1) / Double(ranked) : nil,
                hr5: ranked > 0 ? Double(top5) / Double(ranked) : nil,
                mrr: ranked > 0 ? reciprocalRanks / Double(ranked) : nil)
        }
    }

    static func score(_ user: UserSetup, from start: Instant, tau: Microseconds) -> Tally {
        var log = Questions()
        _ = PolicyRunner.runLearned(
            LearnedPolicy(budget: .fetches(1)), user: user, settings: ReplaySettings(), logSkips: false,
            questions: &log)
        var tally = Tally()
        // Brier and reliability: every question from `start` on, against the app's next launch.
        for i in log.time.indices where log.time[i] >= start {
            let launches = user.pairs[Int(log.pair[i])].launches
            let next = launches.count(upTo: log.time[i])
            let hit = next < launches.count && launches[next] - log.time[i] <= tau
            let p = log.probability[i]
            tally.reliability.record(stated: p, outcome: hit)
            tally.questions += 1
            tally.squaredError += (p - (hit ? 1 : 0)) * (p - (hit ? 1 : 0))
            if hit { tally.hits += 1 }
        }
        // Ranking: at each launch from `start` on, the next launch that needs a fetch.
        var pairOf = [Int: Int]()
        for (p, pair) in user.pairs.enumerated() { pairOf[Int(pair.app)] = p }
        let launches = user.history.launches
        var q = 0
        for i in launches.indices.dropLast() where launches[i].time >= start {
            let t = launches[i].time
            let next = launches[i + 1]
            guard next.time > t, let target = pairOf[Int(next.app)] else { continue }
            let own = user.pairs[target].launches
            let before = own.count(upTo: next.time, inclusive: false)
            guard before == 0 || next.time - own[before - 1] > tau else { continue }
            // The questions asked at this launch.
            while q < log.time.count, log.time[q] < t { q += 1 }
            var asked: [(pair: Int32, p: Double)] = []
            var k = q
            while k < log.time.count, log.time[k] == t {
                if log.atLaunch[k] { asked.append((log.pair[k], log.probability[k])) }
                k += 1
            }
            tally.ranked += 1
            guard let mine = asked.first(where: { $0.pair == Int32(target) })?.p else { continue }
            let rank = 1 + asked.filter { $0.p > mine }.count
            if rank == 1 { tally.top1 += 1 }
            if rank <= 5 { tally.top5 += 1 }
            tally.reciprocalRanks += 1 / Double(rank)
        }
        return tally
    }
}
