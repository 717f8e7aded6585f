import FetchLabCore
import FetchLabPredict
import FetchLabResults

/// A policy family as people type it: `fixed(15m)`, `predictive(10m,0.3)`.
public protocol PolicyFamily: SendableMetatype {
    /// The family's name and its accepted spellings, lowercase; the first is canonical.
    static var familyNames: [String] { get }
    /// The form for help and error messages, e.g. `fixed(T) (e.g. fixed(15m), fixed(1h,4h))`.
    static var form: String { get }
    /// Builds the policies from the arguments between the parentheses (none: `[]`), lowercase and
    /// without spaces; `raw` is the name as typed, for messages.
    static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy]
}

/// A parameter a tuner may vary: its name in `--grid`, its default values as people type them,
/// and how the grid is widened past its values toward fewer fetches (`cheaper`) or more (nil: the
/// parameter does not move the number of fetches one way, or is at its limit).
public struct TunableParameter: Sendable {
    public var name: String
    public var defaults: [String]
    public var widen: @Sendable (_ values: [String], _ cheaper: Bool) -> String?

    public init(
        _ name: String, defaults: [String],
        widen: @escaping @Sendable (_ values: [String], _ cheaper: Bool) -> String? = { _, _ in nil }
    ) {
        self.name = name
        self.defaults = defaults
        self.widen = widen
    }
}

/// A family `tune` can search: its parameters, in the order of its name's arguments. A family
/// declares this in its own file; ``SearchSpace`` finds it through ``PolicyRegistry/families``.
public protocol TunableFamily: PolicyFamily {
    static var tunableParameters: [TunableParameter] { get }
}

/// A policy that an app developer can set on a platform: the settings that carry it to iOS and
/// Android, each with the policy that models it under that platform's rules (`tune`'s platform
/// check). A policy declares this in its own file.
public protocol PlatformTranslatable {
    func platformSettings(ios: PlatformModel) -> [PlatformTranslation]
}

/// Parses policy names as people type them: `never`, `oracle`, `fixed(15m)`, `budget-oracle(4)`,
/// lists in one name (`fixed(15m,1h)`, `budget-oracle(1,2,4)`) and comma-separated lists of names.
public enum PolicyRegistry {
    /// The families, in the order of the help text.
    /// (``PolicyFamily`` is a `SendableMetatype`: the metatypes are shared by every thread.)
    public static let families: [any PolicyFamily.Type] = [
        NeverPolicy.self, FixedIntervalPolicy.self, IOSAdaptivePolicy.self, WorkManagerPolicy.self,
        AndroidPrefetchPolicy.self, PredictivePolicy.self, BudgetedPolicy.self, LearnedPolicy.self,
        AppLearnedPolicy.self, PushPolicy.self, NotificationRefreshPolicy.self, OraclePolicy.self,
        BudgetOraclePolicy.self,
    ]

    /// The seven fixed intervals of the standard set (and the baselines `tune` measures against).
    public static let fixedIntervals: [Microseconds] = [
        .minutes(15), .minutes(30), .hours(1), .hours(2), .hours(4), .hours(8), .hours(24),
    ]
    /// The daily budgets of the standard set's budgeted oracles.
    public static let frontierBudgets = [1, 2, 4, 8, 16]

    /// A small reference set: never, the seven fixed intervals, oracle, budget-oracle(1, 2, 4, 8,
    /// 16), in that order (no comparison needs them any more: the budget figures compute the bound
    /// and the baseline themselves).
    public static var references: [any FetchPolicy] {
        [NeverPolicy()] + fixedIntervals.map { FixedIntervalPolicy(interval: $0) } + [OraclePolicy()]
            + frontierBudgets.map { BudgetOraclePolicy(budget: $0) }
    }

    /// The standard set `compare` and `demo` run by default, as people would type it.
    /// Each tunable family holds settings from about 0.5 to 10 fetches/app/day on the sample, so that
    /// its front can be read at every standard budget.
    public static let standardNames =
        "never, fixed(15m,30m,1h,2h,4h,8h,24h), ios-adaptive, workmanager, android-prefetch(7h,8h), android-prefetch, "
        + "android-prefetch(7h,2h), predictive(15m,0.55), predictive(15m,0.4), predictive(15m,0.3), "
        + "predictive(15m,0.2), predictive(15m,0.15), predictive(15m,0.3,gap+time-of-day), "
        + "predictive(15m,0.2,gap+time-of-day), predictive(15m,0.1,gap+time-of-day), "
        + "predictive-cost-aware(15m,0.55), predictive-cost-aware(15m,0.3), "
        + "predictive-cost-aware(15m,0.2), budgeted(1,2,4,8), learned(0.5,1,2,5,10), learned-cost-aware(10j,40j), "
        + "learned-app(0.5,1,2,5,10), push(0.5), push, notification-refresh, oracle, budget-oracle(1,2,4,8,16)"

    /// The standard set; families that need content updates (push) or notifications
    /// (notification-refresh) only when some exist.
    public static func standard(contentUpdates: Bool = true, notifications: Bool = true) -> [any FetchPolicy] {
        standardSet.filter { (contentUpdates || !$0.needsContentUpdates) && (notifications || !$0.needsNotifications) }
    }

    /// The standard set as values, in the order of ``standardNames`` (which is what it parses to:
    /// `FamilyDeclarationTests` checks the two name for name).
    static let standardSet: [any FetchPolicy] = {
        let predictive = [0.55, 0.4, 0.3, 0.2, 0.15].map { PredictivePolicy(lead: .minutes(15), threshold: $0) }
        let predictiveTimed = [0.3, 0.2, 0.1].map { threshold in
            var p = PredictivePolicy(lead: .minutes(15), threshold: threshold)
            p.estimates = [.gap, .timeOfDay]
            return p
        }
        let predictiveCostAware = [0.55, 0.3, 0.2].map { threshold in
            PredictivePolicy.costAware(
                lead: .minutes(15), threshold: threshold,
                cellularThreshold: PredictivePolicy.defaultCellularThreshold(for: threshold))
        }
        var set: [any FetchPolicy] = [NeverPolicy()]
        set += fixedIntervals.map { FixedIntervalPolicy(interval: $0) }
        set += [IOSAdaptivePolicy(), WorkManagerPolicy()]
        set += [
            AndroidPrefetchPolicy(threshold: .hours(7), period: .hours(8)), AndroidPrefetchPolicy(),
            AndroidPrefetchPolicy(threshold: .hours(7), period: .hours(2)),
        ]
        set += predictive + predictiveTimed + predictiveCostAware
        set += [1, 2, 4, 8].map { BudgetedPolicy(budget: .fetches($0)) }
        set += [0.5, 1, 2, 5, 10].map { LearnedPolicy(budget: .fetches($0)) }
        set += [10.0, 40].map { LearnedPolicy(budget: .joules($0)) }
        set += [0.5, 1, 2, 5, 10].map { AppLearnedPolicy(budget: $0) }
        set += [PushPolicy(rate: 0.5), PushPolicy(), NotificationRefreshPolicy(), OraclePolicy()]
        set += frontierBudgets.map { BudgetOraclePolicy(budget: $0) }
        return set
    }()

    /// Who can run each family of the standard set, from the signals its policies declare: "Scopes
    /// (who can run a policy, from the signals it reads): app (an app team can ship it): never,
    /// fixed, …; OS (…): …; clairvoyant (…): …." A family whose settings differ in scope is named
    /// under each.
    public static var scopeSummary: String {
        var byScope: [PolicyScope: [String]] = [:]
        for p in standard() where !(byScope[p.scope]?.contains(p.family) ?? false) {
            byScope[p.scope, default: []].append(p.family)
        }
        let parts = PolicyScope.allCases.compactMap { scope -> String? in
            guard let families = byScope[scope] else { return nil }
            return "\(scope.label) (\(scope.audience)): \(families.joined(separator: ", "))"
        }
        return "Scopes (who can run a policy, from the signals it reads): " + parts.joined(separator: "; ")
            + "; predictive without its sequence estimate (e.g. predictive(15m,0.3,gap+time-of-day)) is app scope."
    }

    /// The families `tune` can search, in the registry's order.
    public static var tunableFamilies: [any TunableFamily.Type] {
        families.compactMap { $0 as? any TunableFamily.Type }
    }

    /// The forms the registry reads, for help and error messages.
    public static var forms: String { families.map { $0.form }.joined(separator: ", ") }

    /// A policy name that cannot be read: always the user's mistake in an option's value.
    public struct ParseError: FetchLabError, Equatable {
        public enum Code: String, Sendable, Hashable {
            /// No family of that name, or arguments the family does not take.
            case invalidName
        }

        public var code: Code { .invalidName }
        public var message: String
        public var description: String { message }
        public var isUsageError: Bool { true }
        public init(message: String) { self.message = message }
    }

    /// Parses a comma-separated list (commas inside parentheses belong to the name); duplicates
    /// are dropped, the first kept.
    public static func parseList(_ text: String) throws(ParseError) -> [any FetchPolicy] {
        var items: [String] = []
        var current = ""
        var depth = 0
        for c in text {
            if c == "(" { depth += 1 }
            if c == ")" { depth -= 1 }
            if c == "," && depth == 0 {
                items.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        items.append(current)
        var out: [any FetchPolicy] = []
        var seen = Set<String>()
        for item in items {
            for p in try parse(item) where seen.insert(p.name).inserted { out.append(p) }
        }
        guard !out.isEmpty else { throw ParseError(message: "no policy given; expected \(forms)") }
        return out
    }

    /// Parses one name (which may expand to several policies).
    public static func parse(_ raw: String) throws(ParseError) -> [any FetchPolicy] {
        let text = String(raw.lowercased().filter { !$0.isWhitespace })
        let name: String
        var arguments: [String] = []
        if let open = text.firstIndex(of: "(") {
            guard text.hasSuffix(")") else { throw ParseError(message: "policy '\(raw)': missing ')'") }
            name = String(text[..<open])
            arguments = text[text.index(after: open)..<text.index(before: text.endIndex)]
                .split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        } else if let colon = text.firstIndex(of: ":") {
            name = String(text[..<colon])
            arguments = [String(text[text.index(after: colon)...])]
        } else {
            name = text
        }
        guard let family = families.first(where: { $0.familyNames.contains(name) }) else {
            throw ParseError(message: "unknown policy '\(text)'; \(suggestion(for: name))")
        }
        return try family.parse(arguments, raw: raw)
    }

    /// What to say about an unknown family name: the form of the family it is a typo of ("did you
    /// mean fixed(T) …?"), or else the three closest names, never every form (the help lists them).
    static func suggestion(for name: String) -> String {
        // The families by the distance of their closest spelling, closest first, the registry's order on ties.
        var ranked: [(distance: Int, index: Int)] = []
        for (index, family) in families.enumerated() {
            var distance = Int.max
            for spelling in family.familyNames { distance = min(distance, NameSuggestions.distance(name, spelling)) }
            ranked.append((distance, index))
        }
        ranked.sort { ($0.distance, $0.index) < ($1.distance, $1.index) }
        let likely = Set(NameSuggestions.likely(name, among: families.flatMap { $0.familyNames }))
        var meant: [String] = []
        for entry in ranked where meant.count < 2 {
            let family = families[entry.index]
            if family.familyNames.contains(where: { likely.contains($0) }) { meant.append(family.form) }
        }
        if !meant.isEmpty { return "did you mean \(meant.joined(separator: " or "))?" }
        let closest = ranked.prefix(3).map { families[$0.index].familyNames[0] }
        return "the closest names: \(closest.joined(separator: ", ")) (compare --help lists every form)"
    }

    /// Helpers for families' `parse`.
    public enum Arguments {
        /// A number as a canonical name writes it, so that it parses back: `3`, `0.5`, `12.5`.
        public static func numberName(_ x: Double) -> String {
            x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : String(x)
        }

        /// Throws unless at most `count` arguments are given; `usage` says which, e.g.
        /// `ios-adaptive takes at most a lead and a minimum interval, e.g. ios-adaptive(10m,15m)`.
        public static func atMost(_ count: Int, _ arguments: [String], raw: String, usage: String) throws(ParseError) {
            guard arguments.count <= count else { throw ParseError(message: "policy '\(raw)': \(usage)") }
        }

        /// The duration at `index` (see ``duration(_:raw:what:in:)``), or `value` when fewer are given.
        public static func duration(
            _ arguments: [String], at index: Int, default value: Microseconds, raw: String, what: String,
            in range: ClosedRange<Microseconds>
        ) throws(ParseError) -> Microseconds {
            index < arguments.count ? try duration(arguments[index], raw: raw, what: what, in: range) : value
        }

        public static func none(_ arguments: [String], raw: String, family: String) throws(ParseError) {
            guard arguments.isEmpty else { throw ParseError(message: "policy '\(raw)': \(family) takes no parameter") }
        }

        /// A duration from `range` (e.g. `15m`, `1h`, `90s`), with its unit: a bare number other
        /// than 0 (`fixed(15)`) is refused ("15 what?").
        public static func duration(
            _ a: String, raw: String, what: String, in range: ClosedRange<Microseconds>
        ) throws(ParseError) -> Microseconds {
            if Quantity.isUnitless(a) {
                throw ParseError(message: "policy '\(raw)': \(what) \(Quantity.unitQuestion(a))")
            }
            guard let us = Quantity.duration(a), range.contains(us) else {
                throw ParseError(
                    message: "policy '\(raw)': \(what) '\(a)' is not a duration from "
                        + "\(Quantity.format(duration: range.lowerBound)) to \(Quantity.format(duration: range.upperBound))"
                )
            }
            return us
        }

        /// A number from `range`.
        public static func number(
            _ a: String, raw: String, what: String, in range: ClosedRange<Double>
        ) throws(ParseError) -> Double {
            guard let x = Double(a), x.isFinite, range.contains(x) else {
                throw ParseError(
                    message:
                        "policy '\(raw)': \(what) '\(a)' is not a number from \(range.lowerBound) to \(range.upperBound)"
                )
            }
            return x
        }

        /// An integer from `range`.
        public static func integer(
            _ a: String, raw: String, what: String, in range: ClosedRange<Int>
        ) throws(ParseError) -> Int {
            guard let x = Int(a), range.contains(x) else {
                throw ParseError(
                    message:
                        "policy '\(raw)': \(what) '\(a)' is not a whole number from \(range.lowerBound) to \(range.upperBound)"
                )
            }
            return x
        }
    }
}
