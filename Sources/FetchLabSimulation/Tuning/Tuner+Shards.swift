import FetchLabCore
import Foundation

/// One shard's part of a tune's search: its users' replays of every setting a grid or random
/// search tries (and the fixed baselines), on every fold's training part, as mergeable partials.
///
/// A setting's training figures are sums over users, so the partials of shards 1 to N, merged,
/// give each setting exactly the figures one process replaying every user gives: a tune given
/// them (``Tuner/runKeepingHeldOut(_:search:)``) skips its search's replays and makes the same
/// choice, to the last digit. What comes after the search (the choice per app and group, the
/// held-out measurement, the platform check) depends on the choice, so the merging process
/// replays it over the whole population, as any tune does.
public struct TuneSearchPartial: Sendable {
    /// The format this version writes and reads.
    public static let currentFormat = "fetchlab-tune-partial 1"

    /// What every shard of one search must agree on, and the merging tune with them.
    public struct Header: Sendable, Codable, Hashable {
        /// One fold's training part.
        public struct Fold: Sendable, Codable, Hashable {
            /// The fold's label (its days, or its users).
            public var label: String
            /// The launches per day that part light, moderate and heavy users (nil: not grouped).
            public var groupThresholds: [Double]?
            /// The fold's comparison settings' fingerprint (its policies, days and protocol).
            public var comparison: String
        }

        public var format = TuneSearchPartial.currentFormat
        public var family: String
        /// The settings replayed, by name, in the search's order.
        public var settings: [String]
        public var folds: [Fold]
        /// FNV-1a (64 bits, hex) of the population's scored users' names and its first and last days:
        /// shards of one search read the same population.
        public var population: String
        /// The shard (`I/N`).
        public var shard: String

        /// The header without its shard: what every shard of one search shares.
        var shared: Header {
            var h = self
            h.shard = ""
            return h
        }
    }

    public var header: Header
    /// Each fold's training part, for this shard's users.
    public var folds: [ComparisonPartial]

    public init(header: Header, folds: [ComparisonPartial]) {
        self.header = header
        self.folds = folds
    }
}

extension Tuner {
    /// Replays the search's one round (a grid or random search) on the users of `shard` only, on
    /// every fold's training part: the tune's other steps are left to the process that merges
    /// the shards (``runKeepingHeldOut(_:search:)``). Every user is still read, as the folds'
    /// days and the groups' thresholds depend on the whole population.
    public func searchPartial(_ users: @escaping UserBatches, shard: UserShard) throws -> TuneSearchPartial {
        guard let settings = oneRoundSettings else { throw Self.notOneRound(method) }
        guard budgetSpent == nil else {
            throw TuningError(
                "a search sharded has no time budget (each shard replays its users' part of every setting)",
                code: .invalid)
        }
        var setup = try setUp(users)
        for i in setup.training.parts.indices {
            let include = setup.training.parts[i].include
            setup.training.parts[i].include = { include($0) && shard.contains($0.name) }
        }
        progress?("\(setup.label): \(settings.count) settings, shard \(shard)")
        let search = try searchComparisons(setup, settings: settings)
        var folds: [ComparisonPartial] = []
        for (part, fold) in zip(setup.training.parts, search) {
            var run = fold.run
            run.keepsUsers = true
            try part.replay(into: &run)
            folds.append(run.partial(shard: shard, source: ""))
        }
        return TuneSearchPartial(
            header: try searchHeader(setup, settings: settings, search, shard: shard.description), folds: folds)
    }

    /// Each fold's comparison of the search's one round, before any user is added, made as the
    /// search makes it (`settings`' policies, then `never` and the fixed baselines), with the policies it
    /// replays and how many of them the search counts.
    func searchComparisons(_ setup: Setup, settings: [SearchSpace.Setting]) throws -> [(
        run: ComparisonRun, policies: [any FetchPolicy], counted: Int
    )] {
        let policies = try settings.map { try space.policy($0) }
        return setup.training.parts.map { part in
            let (missing, counted) = part.missing(policies, alongside: Self.searchBaselines)
            return (part.comparison(missing), missing, counted)
        }
    }

    /// The header of a search of `settings` over `setup`'s folds, their comparisons `search`.
    func searchHeader(
        _ setup: Setup, settings: [SearchSpace.Setting],
        _ search: [(run: ComparisonRun, policies: [any FetchPolicy], counted: Int)],
        shard: String
    ) throws -> TuneSearchPartial.Header {
        let folds = zip(setup.plans, zip(setup.training.parts, search)).map { plan, pair in
            TuneSearchPartial.Header.Fold(
                label: plan.label, groupThresholds: pair.0.groupThresholds.map { [$0.0, $0.1] },
                comparison: pair.1.run.configuration.fingerprint)
        }
        let p = setup.population
        var bytes = Array(p.users.joined(separator: "\n").utf8)
        bytes += Array("\n\(p.span.map { "\($0.lowerBound)...\($0.upperBound)" } ?? "")".utf8)
        let population = String(UserShard.hash(bytes: bytes), radix: 16)
        return TuneSearchPartial.Header(
            family: space.family.rawValue, settings: try settings.map { try space.name($0) }, folds: folds,
            population: population, shard: shard)
    }

    /// Fills each fold's training part with the figures of `partials` merged: checked first to be
    /// the shards 1 to N of one search, the one this run would make of the same population.
    func merge(
        _ partials: [TuneSearchPartial], into training: inout Training, setup: Setup,
        settings: [SearchSpace.Setting]
    ) throws {
        let search = try searchComparisons(setup, settings: settings)
        try Self.checkShards(partials, against: try searchHeader(setup, settings: settings, search, shard: ""))
        for (i, fold) in search.enumerated() {
            var run = try ComparisonRun(merging: fold.run.configuration, policies: fold.policies)
            run.tallyUsers = true
            run.userGroups = fold.run.userGroups
            for partial in partials {
                if let problem = partial.folds[i].inconsistency(policies: fold.policies) {
                    throw TuningError("shard \(partial.header.shard): fold \(i + 1): \(problem)", code: .invalid)
                }
                do {
                    try run.absorb(partial.folds[i])
                } catch {
                    throw TuningError("shard \(partial.header.shard): fold \(i + 1): \(error)", code: .invalid)
                }
            }
            do {
                try run.finishMerge()
            } catch {
                throw TuningError(error.message)
            }
            training.parts[i].keep(run, missing: fold.policies, counted: fold.counted)
        }
    }

    /// Refuses partials that are not exactly shards 1 to N of one N, each once, of the search
    /// `expected` describes: the first difference, in one line.
    static func checkShards(_ partials: [TuneSearchPartial], against expected: TuneSearchPartial.Header)
        throws(TuningError)
    {
        guard let first = partials.first else { throw TuningError("no partial to merge", code: .invalid) }
        var seen: [Int: Int] = [:]
        var count: Int? = nil
        for (k, p) in partials.enumerated() {
            let h = p.header
            let name = "shard \(h.shard)"
            guard let shard = UserShard(h.shard) else {
                throw TuningError("partial \(k + 1): no shard I/N", code: .invalid)
            }
            if let count, count != shard.count {
                throw TuningError(
                    "\(name) is one of \(shard.count) shards, \(first.header.shard) one of \(count): "
                        + "merge the shards of one search", code: .invalid)
            }
            count = shard.count
            if let other = seen.updateValue(k, forKey: shard.index) {
                throw TuningError("\(name) is given twice (partials \(other + 1) and \(k + 1))", code: .invalid)
            }
            guard h.format == TuneSearchPartial.currentFormat else {
                throw TuningError(
                    "\(name): format '\(h.format)'; this fetchlab reads '\(TuneSearchPartial.currentFormat)'",
                    code: .invalid)
            }
            if let difference = difference(h.shared, expected.shared) {
                throw TuningError("\(name) is not a shard of this search: \(difference)", code: .invalid)
            }
            guard p.folds.count == h.folds.count else {
                throw TuningError(
                    "\(name): \(p.folds.count) folds' partials, its header gives \(h.folds.count)", code: .invalid)
            }
            for (fold, partial) in zip(h.folds, p.folds) where partial.fingerprint != fold.comparison {
                throw TuningError("\(name): \(fold.label): its partial's settings are not its header's", code: .invalid)
            }
        }
        let missing = (1...(count ?? 1)).filter { seen[$0] == nil }
        if !missing.isEmpty {
            let list = missing.prefix(5).map { "\($0)/\(count!)" }.joined(separator: ", ")
            throw TuningError(
                "shard\(missing.count == 1 ? "" : "s") \(list)\(missing.count > 5 ? ", …" : "") missing: "
                    + "a search merges every shard of its users, 1 to \(count!)", code: .invalid)
        }
    }

    /// What differs between a shard's search and this run's, in words (nil: nothing).
    static func difference(_ a: TuneSearchPartial.Header, _ b: TuneSearchPartial.Header) -> String? {
        if a.family != b.family { return "it tuned \(a.family), this run \(b.family)" }
        if a.settings != b.settings {
            return "its \(a.settings.count) settings are not this run's \(b.settings.count) (another grid or search)"
        }
        if a.population != b.population { return "it read another population (another database or --users)" }
        if a.folds.count != b.folds.count { return "it has \(a.folds.count) folds, this run \(b.folds.count)" }
        for (x, y) in zip(a.folds, b.folds) {
            if x.label != y.label { return "its training part is \(x.label), this run's \(y.label)" }
            if x.groupThresholds != y.groupThresholds { return "its users' groups differ (\(x.label))" }
            if x.comparison != y.comparison {
                return "its replay settings differ (\(x.label): protocol, platform, cost or τ)"
            }
        }
        return a == b ? nil : "its header differs"
    }

    static func notOneRound(_ method: SearchMethod) -> TuningError {
        TuningError(
            "a \(method.rawValue) search cannot be sharded: each of its rounds depends on the last; "
                + "shard a grid or random search",
            code: .invalid)
    }
}
