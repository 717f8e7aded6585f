import FetchLabCore

/// The fetch moments a clairvoyant scheduler may use, cumulative: each set holds the one before it.
public enum SignalSet: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    /// Launches of the user's other apps (any app but the one fetched, evaluated or not).
    case launches
    /// Plus the user's unlock, screen-on and system-UI signals.
    case device
    /// Plus the notifications for the app fetched.
    case notifications
    /// Any moment of the scored span: the clairvoyant bound itself.
    case anywhere

    /// The signal kinds this set adds to the one before it (none for `launches` and `anywhere`).
    public var addedSignals: [UsageEventKind] {
        switch self {
        case .launches, .anywhere: []
        case .device: [.unlock, .screenOn, .systemUI]
        case .notifications: [.notification]
        }
    }

    /// The event kinds whose moments this set adds to the one before it: `launch` (of another app)
    /// for `launches`, its signals for the others, none for `anywhere` (every moment).
    public var addedKinds: [UsageEventKind] { self == .launches ? [.launch] : addedSignals }

    /// For people: "launches of other apps", "+ unlock, screen on, system UI", …
    public var label: String {
        switch self {
        case .launches: "launches of other apps"
        case .device: "+ unlock, screen on, system UI"
        case .notifications: "+ notifications for the app"
        case .anywhere: "anywhere (the bound)"
        }
    }

    public static func < (a: SignalSet, b: SignalSet) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// Per-signal ceilings: the clairvoyant bound restricted to the fetch moments each ``SignalSet``
/// offers, at each budget and with no budget. Encodes to `{"tau_minutes", "launch_refreshes",
/// "budgets", "signal_events": {kind: count}, "sets": [{"set", "adds", "signals_present",
/// "fresh_at_budget": [{"budget", "fresh"}], "fresh_unlimited", "note"}]}`.
///
/// A fetch at a moment m makes fresh the targets in [m, m + τ]; the moments are those of the set
/// inside the scored span. Fresh rates are over all scored launches, those fresh without a fetch
/// included, as the bound's. A set whose signals the logs do not hold has the figures of the set
/// before it, `signals_present` false and a note saying so.
public struct SignalCeilings: Codable, Sendable, Hashable {
    /// One signal set's ceilings.
    public struct Ceiling: Codable, Sendable, Hashable {
        public var set: SignalSet
        /// Whether the logs held any signal this set adds (always true for `launches` and `anywhere`).
        public var signalsPresent: Bool
        /// The ceiling's fresh rate at each of ``SignalCeilings/budgets`` (empty when only the
        /// unlimited ceiling was computed).
        public var fresh: [Double]
        /// With no budget: every target some moment of the set can cover.
        public var unlimited: Double

        public init(set: SignalSet, signalsPresent: Bool, fresh: [Double], unlimited: Double) {
            self.set = set
            self.signalsPresent = signalsPresent
            self.fresh = fresh
            self.unlimited = unlimited
        }

        /// Why the figures repeat the set before's, when they do.
        public var note: String? {
            guard !signalsPresent else { return nil }
            let kinds = set.addedSignals.map(\.name)
            let list = kinds.count > 1 ? kinds.dropLast().joined(separator: ", ") + " or " + kinds.last! : kinds[0]
            return "the logs hold no \(list) event: the same moments as the set before"
        }
    }

    /// τ of the fresh rates (JSON `tau_minutes`).
    public var tau: Microseconds
    public var launchRefreshes: Bool
    /// Fetches per app per day (averaged over pairs, as the budget curve's).
    public var budgets: [Double]
    /// Signal events in the evaluated users' scored spans, by kind (every signal kind, 0 when absent).
    public var signalEvents: [UsageEventKind: Int]
    /// One per signal set, in the order of ``SignalSet``.
    public var sets: [Ceiling]

    public init(
        tau: Microseconds, launchRefreshes: Bool, budgets: [Double], signalEvents: [UsageEventKind: Int],
        sets: [Ceiling]
    ) {
        self.tau = tau
        self.launchRefreshes = launchRefreshes
        self.budgets = budgets
        self.signalEvents = Self.everyKind(signalEvents)
        self.sets = sets
    }

    /// `counts` with every signal kind (0 for those it lacks), as the JSON gives them.
    static func everyKind(_ counts: [UsageEventKind: Int]) -> [UsageEventKind: Int] {
        Dictionary(uniqueKeysWithValues: UsageEventKind.allCases.filter(\.isSignal).map { ($0, counts[$0] ?? 0) })
    }

    /// The ceiling of one set.
    public subscript(_ set: SignalSet) -> Ceiling? { sets.first { $0.set == set } }

    /// A set's fresh rate at `budget`, when it is one of ``budgets``.
    public func fresh(_ set: SignalSet, atBudget budget: Double) -> Double? {
        guard let i = budgets.firstIndex(of: budget), let c = self[set], c.fresh.indices.contains(i) else { return nil }
        return c.fresh[i]
    }

    enum CodingKeys: String, CodingKey {
        case tau = "tau_minutes", launchRefreshes = "launch_refreshes", budgets
        case signalEvents = "signal_events", sets
    }

    enum SetKeys: String, CodingKey {
        case set, adds, signalsPresent = "signals_present", freshAtBudget = "fresh_at_budget"
        case unlimited = "fresh_unlimited", note
    }

    enum PointKeys: String, CodingKey { case budget, fresh }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(InMinutes(wrappedValue: tau), forKey: .tau)
        try c.encode(launchRefreshes, forKey: .launchRefreshes)
        try c.encode(budgets, forKey: .budgets)
        var events: [String: Int] = [:]
        for kind in UsageEventKind.allCases where kind.isSignal { events[kind.name] = signalEvents[kind] ?? 0 }
        try c.encode(events, forKey: .signalEvents)
        var list = c.nestedUnkeyedContainer(forKey: .sets)
        for s in sets {
            var o = list.nestedContainer(keyedBy: SetKeys.self)
            try o.encode(s.set, forKey: .set)
            try o.encode(s.set.addedKinds.map(\.name), forKey: .adds)
            try o.encode(s.signalsPresent, forKey: .signalsPresent)
            var points = o.nestedUnkeyedContainer(forKey: .freshAtBudget)
            for (b, f) in zip(budgets, s.fresh) {
                var p = points.nestedContainer(keyedBy: PointKeys.self)
                try p.encode(b, forKey: .budget)
                try p.encode(f, forKey: .fresh)
            }
            try o.encode(s.unlimited, forKey: .unlimited)
            try o.encodeIfPresent(s.note, forKey: .note)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        tau = try c.decode(InMinutes.self, forKey: .tau).wrappedValue
        launchRefreshes = try c.decode(Bool.self, forKey: .launchRefreshes)
        budgets = try c.decode([Double].self, forKey: .budgets)
        let events = try c.decodeIfPresent([String: Int].self, forKey: .signalEvents) ?? [:]
        var counts: [UsageEventKind: Int] = [:]
        for (name, n) in events {
            if let kind = UsageEventKind(name: name) { counts[kind] = n }
        }
        signalEvents = Self.everyKind(counts)
        var list = try c.nestedUnkeyedContainer(forKey: .sets)
        sets = []
        while !list.isAtEnd {
            let o = try list.nestedContainer(keyedBy: SetKeys.self)
            var fresh: [Double] = []
            var points = try o.nestedUnkeyedContainer(forKey: .freshAtBudget)
            while !points.isAtEnd {
                let p = try points.nestedContainer(keyedBy: PointKeys.self)
                fresh.append(try p.decode(Double.self, forKey: .fresh))
            }
            sets.append(
                Ceiling(
                    set: try o.decode(SignalSet.self, forKey: .set),
                    signalsPresent: try o.decode(Bool.self, forKey: .signalsPresent), fresh: fresh,
                    unlimited: try o.decode(Double.self, forKey: .unlimited)))
        }
    }
}
