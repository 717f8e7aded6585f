import FetchLabCore
import FetchLabResults
import Foundation

/// Merging partials: an empty run of their configuration absorbs them one at a time, then adds
/// their users in the order one run takes them.
extension ComparisonRun {
    /// An empty run of `configuration`, to merge partials into one at a time (``absorb(_:)``,
    /// then ``finishMerge()``), as if their users had been replayed in one run, in the order of
    /// their names' UTF-8 bytes: `policies` are the configuration's, parsed. A merge so holds one
    /// partial's sums at a time, not all of them. Call ``report()`` on it.
    /// - Parameters:
    ///   - configuration: the partials' configuration.
    ///   - policies: its policies, as values (``ComparisonPartial/Configuration/policyValues()``).
    ///   - perUserRows: makes where the per-user rows go, given the number of policies, when the
    ///   partials kept them (FetchLabScale's `PerUserSpool` on disk); nil: held in the report.
    ///   - recordStorage: where the merge keeps its users' records until they are added in order.
    public init(
        merging configuration: ComparisonPartial.Configuration, policies: [any FetchPolicy],
        perUserRows: ((Int) throws -> any PerUserRows)? = nil, recordStorage: any RecordStorage = MemoryRecordStorage()
    ) throws {
        let c = configuration
        var simulator = Simulator(evaluation: c.evaluation, settings: c.settings)
        simulator.perUser = c.perUser
        simulator.recordStorage = recordStorage
        self.init(simulator: simulator, policies: policies, budgetFigures: c.budgetFigures)
        budgets = c.budgets
        headlineBudget = c.headlineBudget
        resamples = c.resamples
        seed = c.seed
        // (An initializer does not call the properties' observers.)
        budget?.resamples = c.resamples
        budget?.seed = c.seed
        if c.perUser, let perUserRows { keepPerUser(in: try perUserRows(requestedPolicies)) }
    }

    /// Adds the sums of `p` (a partial of this run's configuration, checked with
    /// ``ComparisonPartial/inconsistency(policies:)``) and keeps its users for ``finishMerge()``.
    ///
    /// Every addition of the partial's figures is checked first: one that would overflow throws,
    /// naming the field, and leaves the run as it was (a partial is not trusted input).
    public mutating func absorb(_ p: consuming ComparisonPartial) throws(PartialProblem) {
        try checkAbsorbing(p)
        for i in totals.indices { totals[i].add(p.totals[i]) }
        for (app, sums) in p.perApp {
            if perApp[app] == nil {
                perApp[app] = sums
            } else {
                for i in sums.indices { perApp[app]![i].add(sums[i]) }
            }
        }
        for (group, sums) in p.perGroup ?? [:] {
            if perGroup[group] == nil {
                perGroup[group] = sums
            } else {
                for i in sums.indices { perGroup[group]![i].add(sums[i]) }
            }
        }
        for i in cpuSeconds.indices { cpuSeconds[i] += p.cpuSeconds[i] }
        launchesReplayed += p.launchesReplayed
        if let sums = p.bootstrap { budget?.addBootstrap(sums) }
        // Each user waits on disk, not in memory: its days (a partial of few users keeps them,
        // for the bootstrap over days) as its record, the rest as its JSON.
        let encoder = JSONEncoder()
        for var u in p.users {
            var budget: Int? = nil
            if let sums = u.budget, sums.days != nil {
                budget = mergingRecords.count
                mergingRecords.append(BudgetAnalysis.record(sums))
                u.budget = sums.withoutRecordFigures
            }
            if let json = try? encoder.encode(u) {
                mergingUsers.append(.init(name: u.name, user: .record(mergingRecords.count), budget: budget))
                mergingRecords.append(Array(json))
            } else {
                mergingUsers.append(.init(name: u.name, user: .held(u), budget: budget))
            }
        }
    }

    /// Refuses `p` when adding its sums, its launches or its users would overflow.
    private func checkAbsorbing(_ p: borrowing ComparisonPartial) throws(PartialProblem) {
        func check(_ a: [MetricSums], _ b: [MetricSums], _ field: String) throws(PartialProblem) {
            for i in b.indices where a.indices.contains(i) {
                if let name = a[i].overflowOnAdding(b[i]) {
                    throw PartialProblem("\(field)[\(i)].\(name)", "the merged sum overflows")
                }
            }
        }
        try check(totals, p.totals, "totals")
        for (app, sums) in p.perApp { try check(perApp[app] ?? [], sums, "app \(app): sums") }
        for (group, sums) in p.perGroup ?? [:] { try check(perGroup[group] ?? [], sums, "perGroup.\(group)") }
        _ = try Check.sum(launchesReplayed, p.launchesReplayed, "launchesReplayed")
        if let b = p.bootstrap, let problem = (budget?.bootstrap ?? budget?.emptyBootstrap)?.problemAdding(b) {
            throw PartialProblem("bootstrap", problem)
        }
        guard mergingUsers.count + p.users.count <= PartialLimits.users else {
            throw PartialProblem("users", "more than \(PartialLimits.users) users in one merge")
        }
    }

    /// Adds the users of every partial absorbed, in the order one run takes them (by name, in
    /// bytes), each let go as it is added: a merge holds each user once, as the run keeps it.
    public mutating func finishMerge() throws(SpoolError) {
        // Last name first, so that each user is popped as it is added, in name order.
        mergingUsers.sort { $1.name.utf8.lexicographicallyPrecedes($0.name.utf8) }
        let decoder = JSONDecoder()
        while let m = mergingUsers.popLast() {
            var u: ComparisonPartial.User
            switch m.user {
            case .held(let held): u = held
            case .record(let i):
                do {
                    u = try decoder.decode(ComparisonPartial.User.self, from: Data(mergingRecords.record(at: i)))
                } catch {
                    throw SpoolError("user \(m.name) cannot be read back from the merge's temporary file: \(error)")
                }
            }
            u.record = m.budget.map { mergingRecords.record(at: $0) }
            addOrdered(u)
        }
        mergingRecords = StoredRecords(in: mergingRecords.storage)
        try perUserRows?.finish()
    }

    /// Adds the figures of one user that depend on the users' order: ``add(_:progress:prepare:)``
    /// calls it for each user replayed, a merge for each user of the partials, in the same order.
    mutating func addOrdered(_ u: ComparisonPartial.User) {
        users += 1
        if u.withoutContext { usersWithoutContext += 1 }
        pairsWithContent += u.pairsWithContent
        if firstStart == nil || u.start < firstStart!.0 { firstStart = (u.start, u.offset) }
        if lastEnd == nil || u.end > lastEnd!.0 { lastEnd = (u.end, u.offset) }
        for app in u.apps where listedApps.insert(app).inserted { appOrder.append(app) }
        if let sums = u.budget { budget?.add(sums, record: u.record) }
        if let sums = u.sums {
            let metrics = sums.map {
                $0.metrics(taus: taus, primary: primary, batteryJoules: simulator.settings.cost.batteryJoules)
            }
            if let spool = perUserRows {
                spool.add(user: u.name, metrics: Array(metrics[..<requested]))
            } else {
                perUser.append((u.name, metrics))
            }
        }
        activity.append((u.name, u.launchesPerDay))
        if let group = u.group, !groupOrder.contains(group) { groupOrder.append(group) }
        if let scored = u.scored, scored > 0 { scoredUsers += 1 }
    }
}

extension ComparisonPartial {
    /// A user of the partials a merge has read, waiting to be added in name order: the user
    /// (without what it adds to the bootstrap) and what it adds to the bootstrap are records of
    /// the merge's spill, on disk, or the user is held when it cannot be written (JSON cannot hold
    /// a figure). A few dozen bytes in memory (a held user is boxed).
    struct MergingUser: Sendable {
        enum Kept: Sendable {
            case record(Int)
            indirect case held(User)
        }
        var name: String
        var user: Kept
        var budget: Int?
    }
}
