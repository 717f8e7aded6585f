import FetchLabCore

extension Tuner {
    /// The folds of the split, the held-out part other settings are measured on, and the split in words.
    func plans(_ names: [String], span: ClosedRange<CivilDate>, base: Simulator) throws -> (
        [FoldPlan], HeldOutPart, String
    ) {
        let evaluation = base.evaluation
        switch split {
        case .users:
            guard names.count >= 2 else {
                throw TuningError(
                    "--split users needs at least 2 users with scored launches (one to test on, one to train on); "
                        + "the data has \(names.count): use the time split (--split time)")
            }
            if names.count < Self.leaveOneOutBelow {
                let plans = names.enumerated().map { i, name in
                    FoldPlan(
                        train: base, test: base, trainUser: { $0.name != name }, testUser: { $0.name == name },
                        trainCut: nil,
                        label:
                            "users: train the \(names.count - 1) others, test \(name) (fold \(i + 1) of \(names.count))"
                    )
                }
                let text =
                    "leave one user out: \(names.count) users (fewer than \(Self.leaveOneOutBelow)), each the test part of "
                    + "one fold and a training user of the others; the setting is chosen by its mean over the folds' "
                    + "test parts (within the constraints on every one), so the chosen setting's test figures informed "
                    + "the choice: each fold's own pick, chosen on its training users alone, is the estimate for users "
                    + "never seen"
                return (
                    plans,
                    HeldOutPart(
                        simulator: base, includes: { _ in true }, label: "every user (each the test part of its fold)"),
                    text
                )
            }
            let training = Self.trainingUsers(names)
            let tested = names.count - training.count
            let plan = FoldPlan(
                train: base, test: base, trainUser: { training.contains($0.name) },
                testUser: { !training.contains($0.name) }, trainCut: nil,
                label: "users: train \(training.count), test \(tested) (by a hash of the name)")
            return (
                [plan],
                HeldOutPart(
                    simulator: base, includes: { !training.contains($0.name) },
                    label: "users: test \(tested) of \(names.count) (by a hash of the name)"),
                "by users: the 70 % of the \(names.count) users whose names hash lowest train, the other \(tested) test"
            )
        case .time(let trainUntil, let k):
            let first = span.lowerBound.daysSince1970
            let last = span.upperBound.daysSince1970
            var cuts: [Int]
            if let trainUntil {
                cuts = [trainUntil.daysSince1970]
            } else {
                let days = last - first + 1
                cuts =
                    k <= 1
                    ? [first + Int((0.7 * Double(days)).rounded(.down)) - 1]
                    : (1...k).map { first + days * $0 / (k + 1) - 1 }
            }
            var plans: [FoldPlan] = []
            var heldOut: HeldOutPart? = nil
            for (i, cut) in cuts.enumerated() {
                guard cut >= first, cut < last else {
                    throw TuningError(
                        "the training cut \(CivilDate(daysSince1970: cut)) leaves no training or no test days "
                            + "(scored days \(span.lowerBound) to \(span.upperBound))")
                }
                var train = base
                train.evaluation.scoredThrough = CivilDate(daysSince1970: cut)
                if let through = evaluation.scoredThrough, through.daysSince1970 < cut {
                    train.evaluation.scoredThrough = through
                }
                var test = base
                test.evaluation.scoredFrom = CivilDate(daysSince1970: cut + 1)
                if i + 1 < cuts.count { test.evaluation.scoredThrough = CivilDate(daysSince1970: cuts[i + 1]) }
                let testDays =
                    "test \(CivilDate(daysSince1970: cut + 1)) to \(test.evaluation.scoredThrough ?? span.upperBound)"
                let label =
                    "train \(train.evaluation.scoredFrom.map { "\($0)" } ?? span.lowerBound.description) to "
                    + "\(CivilDate(daysSince1970: cut)), \(testDays)"
                heldOut = HeldOutPart(simulator: test, includes: { _ in true }, label: testDays)
                plans.append(
                    FoldPlan(
                        train: train, test: test, trainUser: { _ in true }, testUser: { _ in true },
                        trainCut: train.evaluation.scoredThrough, label: label))
            }
            guard let heldOut else { throw TuningError("no fold to measure on") }
            let text =
                plans.count == 1
                ? "by time: train on the scored days through the cut, test on the days after it"
                : "by time: \(plans.count) expanding-window folds; the setting is chosen by its mean over the folds' "
                    + "test parts (within the constraints on every one), so the chosen setting's test figures informed "
                    + "the choice: each fold's own pick, chosen on its training days alone, is the estimate for days "
                    + "never seen"
            return (plans, heldOut, text)
        }
    }

    /// The users who train under the user split: the 70 % (rounded) whose names hash lowest by
    /// FNV-1a (ties by name), so that at least 3 of 10 or more users test.
    public static func trainingUsers(_ names: [String]) -> Set<String> {
        func hash(_ name: String) -> UInt64 {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in name.utf8 {
                h ^= UInt64(b)
                h = h &* 0x100_0000_01b3
            }
            return h
        }
        let sorted = names.sorted { (hash($0), $0) < (hash($1), $1) }
        return Set(sorted.prefix(Int((0.7 * Double(names.count)).rounded())))
    }

    /// The first and last scored local day over all users, and the users with a scored launch (by name).
    struct Population {
        var span: ClosedRange<CivilDate>?
        var users: [String]
    }

    static func population(_ users: UserBatches, evaluation: EvaluationProtocol) throws -> Population {
        var first: Int? = nil
        var last: Int? = nil
        var names: [String] = []
        try users { batch in
            for h in batch {
                let apps = Set(evaluation.evaluatedApps(of: h))
                guard let w = evaluation.window(of: h), !apps.isEmpty else { continue }
                let a = LocalCalendar.day(w.start, offset: w.offset)
                let b = LocalCalendar.day(w.end, offset: w.offset)
                first = min(first ?? a, a)
                last = max(last ?? b, b)
                if h.launches.contains(where: { apps.contains($0.app) && w.isScored($0.time) }) {
                    names.append(h.user.name)
                }
            }
        }
        guard let first, let last else { return Population(span: nil, users: []) }
        return Population(
            span: CivilDate(daysSince1970: first)...CivilDate(daysSince1970: last), users: names.sorted())
    }
}
