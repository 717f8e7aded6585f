import FetchLabCore
import FetchLabResults

/// Fetches when a learned model says the app is about to be opened, spending about a daily budget.
///
/// `learned(B)` spends about B fetches per app per day; `learned-cost-aware(J)` about J joules per
/// app a day, a cellular fetch counting its energy (none on a low battery). A model per (user, app)
/// pair of "a launch of the app within τ after now" is asked at every moment a policy may act — a
/// launch of another app, an unlock, a screen-on, a system-UI screen, a notification for the app,
/// and a quarter-hourly timer — from the user's hit rates of that trigger, of the app before it, of
/// the time since the app's last use and of the hour of the week, session context and the app's
/// launch rate, combined by a logistic regression fitted across a population and recalibrated per
/// pair online. One spend controller per user moves the probability threshold so that the user's
/// fetches follow the budget and go to the apps whose launches are likeliest. Each fetch states its
/// probability.
public struct LearnedPolicy: FetchPolicy {
    /// What the daily budget counts.
    public enum Budget: Sendable, Hashable {
        /// Fetches per day (`learned(2)`).
        case fetches(Double)
        /// Joules per day (`learned-cost-aware(40j)`).
        case joules(Double)
    }

    public var budget: Budget
    /// Cost-aware: the budget is energy, a fetch's value is divided by its cost, no fetch on a low
    /// battery (below 20 %, not charging).
    public var costAware: Bool { if case .joules = budget { true } else { false } }

    public init(budget: Budget = .fetches(2)) {
        self.budget = budget
    }

    public var name: String {
        switch budget {
        case .fetches(let b): "learned(\(PolicyRegistry.Arguments.numberName(b)))"
        case .joules(let j): "learned-cost-aware(\(PolicyRegistry.Arguments.numberName(j))j)"
        }
    }
    public var family: String { costAware ? "learned-cost-aware" : "learned" }
    /// Other apps' launches (triggers, sessions), unlocks, screen-on and system UI, the app's own
    /// launches and notifications; the cost-aware one also the device's state.
    public var signals: Set<PolicySignal> {
        let s: Set<PolicySignal> = [.ownLaunches, .otherLaunches, .deviceSignals, .notifications]
        return costAware ? s.union([.context]) : s
    }
    public var parameters: [String: Double] {
        switch budget {
        case .fetches(let b): ["budget": b]
        case .joules(let j): ["joules": j]
        }
    }
    public var summary: String {
        let what =
            switch budget {
            case .fetches(let b): "about \(PolicyRegistry.Arguments.numberName(b)) fetches a day"
            case .joules(let j):
                "about \(PolicyRegistry.Arguments.numberName(j)) J a day, by cost, none on a low battery"
            }
        return "fetch when a learned model of the next use (triggers, sessions, recency) is confident enough; \(what)"
    }

    public func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? {
        LearnedScheduler(policy: self, pair: pair)
    }
}

extension LearnedPolicy: PolicyFamily {
    public static let familyNames = ["learned", "learned-cost-aware", "learned_cost_aware"]
    public static let form = "learned(B) (e.g. learned(2), learned(0.5,1,2,5,10)), learned-cost-aware(<J>j)"

    public static func parse(_ arguments: [String], raw: String) throws(PolicyRegistry.ParseError) -> [any FetchPolicy]
    {
        let aware = raw.lowercased().contains("cost")
        guard !arguments.isEmpty else { return [LearnedPolicy(budget: aware ? .joules(40) : .fetches(2))] }
        return try arguments.map { (a: String) throws(PolicyRegistry.ParseError) -> any FetchPolicy in
            if aware {
                let text = a.hasSuffix("j") ? String(a.dropLast()) : a
                let j = try PolicyRegistry.Arguments.number(
                    text, raw: raw, what: "daily energy budget (joules)", in: 0.01...1_000_000)
                return LearnedPolicy(budget: .joules(j))
            }
            let b = try PolicyRegistry.Arguments.number(a, raw: raw, what: "daily budget (fetches)", in: 0.01...1_000)
            return LearnedPolicy(budget: .fetches(b))
        }
    }
}

extension LearnedPolicy: TunableFamily {
    /// `tune --family learned`: the daily budget; halved toward fewer fetches, doubled toward more.
    public static let tunableParameters = [
        TunableParameter("budget", defaults: ["0.5", "1", "2", "5", "10"]) { values, cheaper in
            let numbers = values.compactMap { Double($0) }
            guard numbers.count == values.count, let low = numbers.min(), let high = numbers.max() else { return nil }
            let next = cheaper ? low / 2 : high * 2
            guard cheaper ? next >= 0.05 : next <= 1_000 else { return nil }
            return PolicyRegistry.Arguments.numberName(next)
        }
    ]
}
