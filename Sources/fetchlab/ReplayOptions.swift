import ArgumentParser
import FetchLabCore
import FetchLabPredict
import FetchLabReport
import FetchLabResults
import FetchLabSimulation
import FetchLabStore
import FetchLabTerminal
import FetchLabWorkflows
import Foundation

/// The models' defaults: every option of the models has its default from here.
private let model = ReplaySettings()

/// The platform, cost model, context defaults and population of a replay (`compare`, `tune`, `demo`).
/// Every constant of the cost and platform models is an option; the defaults and their sources
/// are documented in Docs/platform-and-cost.md.
struct ReplayOptions: ParsableArguments {
    @Option(
        help:
            "Which platform grants the fetches: none (every fetch asked for happens: the pure policy, as DOMAIN.md's protocol measures it), ios or android."
    )
    var platform = model.platform.kind

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Users to replay: a comma-separated list of names, or N (1 to 1,000,000) for N users spread over the list.",
            valueName: "list|N"))
    var users: String?

    @Option(help: ArgumentHelp("Only these apps are evaluated (comma-separated names).", valueName: "list"))
    var apps: String?

    @Option(help: "Score from this local day (YYYY-MM-DD; never before the warm-up ends).")
    var from: CivilDate?

    @Option(help: "Score through this local day (YYYY-MM-DD).")
    var to: CivilDate?

    // Cost model.
    @Option(parsing: .unconditional, help: "How long a fetch transfers (0.1s to 10m).")
    var fetchDuration = DurationArgument(model.cost.fetchDuration)
    @Option(parsing: .unconditional, help: "How much a fetch downloads (e.g. 150kB).")
    var fetchSize = ByteSizeArgument(bytes: model.cost.fetchBytes)
    @Option(
        help: ArgumentHelp(
            "An app's own fetch duration and size, APP=DURATION/SIZE (repeatable), e.g. com.example.podcast=20s/5MB.",
            valueName: "app=d/size"))
    var appCost: [String] = []
    @Option(parsing: .unconditional, help: "LTE transfer power, W.") var cellularTransferW = model.cost
        .cellularTransferWatts
    @Option(parsing: .unconditional, help: "LTE promotion time.") var cellularPromotion = DurationArgument(
        model.cost.cellularPromotion)
    @Option(parsing: .unconditional, help: "LTE promotion power, W.") var cellularPromotionW = model.cost
        .cellularPromotionWatts
    @Option(parsing: .unconditional, help: "LTE tail time.") var cellularTail = DurationArgument(
        model.cost.cellularTail)
    @Option(parsing: .unconditional, help: "LTE tail power, W.") var cellularTailW = model.cost.cellularTailWatts
    @Option(parsing: .unconditional, help: "Wi-Fi transfer power, W.") var wifiTransferW = model.cost.wifiTransferWatts
    @Option(parsing: .unconditional, help: "Wi-Fi promotion time.") var wifiPromotion = DurationArgument(
        model.cost.wifiPromotion)
    @Option(parsing: .unconditional, help: "Wi-Fi promotion power, W.") var wifiPromotionW = model.cost
        .wifiPromotionWatts
    @Option(parsing: .unconditional, help: "Wi-Fi tail time.") var wifiTail = DurationArgument(model.cost.wifiTail)
    @Option(parsing: .unconditional, help: "Wi-Fi tail power, W.") var wifiTailW = model.cost.wifiTailWatts
    @Option(parsing: .unconditional, help: "Battery capacity, Wh.") var batteryWh = model.cost.batteryWattHours
    @Option(parsing: .unconditional, help: "Low battery: below this percent and not charging.") var lowBattery = model
        .cost.lowBatteryPercent

    // Platform model.
    @Option(parsing: .unconditional, help: "iOS: the time budget of a background fetch or push; longer fetches expire.")
    var fetchBudget = DurationArgument(model.platform.fetchBudget)
    @Option(parsing: .unconditional, help: "iOS: background fetches no closer than this.")
    var iosMinimumInterval = DurationArgument(model.platform.iosMinimumInterval)
    @Option(parsing: .unconditional, help: "iOS: silent pushes per hour per app.") var pushRate = model.platform
        .pushesPerHour
    @Option(parsing: .unconditional, help: "iOS: background fetches per app per day (0: no limit).")
    var dailyFetchBudget = model.platform.dailyFetchBudget
    @Option(
        parsing: .unconditional,
        help: "iOS: the daily wake budget per app, in background fetches per launch a day over the window.")
    var iosWakeBudgetPerLaunch = model.platform.iosWakeBudgetPerLaunch
    @Option(parsing: .unconditional, help: "iOS: the least daily wake budget of an app launched within the window.")
    var iosWakeBudgetMin = model.platform.iosWakeBudgetMin
    @Option(parsing: .unconditional, help: "iOS: the greatest daily wake budget of an app (0: no wake budget).")
    var iosWakeBudgetMax = model.platform.iosWakeBudgetMax
    @Option(
        parsing: .unconditional,
        help: "iOS: the wake budget follows the app's launches over this window before each day.")
    var iosWakeBudgetWindow = DurationArgument(model.platform.iosWakeBudgetWindow)
    @Option(
        parsing: .unconditional,
        help: "iOS: how long before an expected launch the system runs a fetch for a requested interval.")
    var iosSystemLead = DurationArgument(model.platform.iosSystemLead)
    @Option(parsing: .unconditional, help: "Android: minimum period of periodic work.")
    var androidMinimumPeriod = DurationArgument(model.platform.androidMinimumPeriod)
    @Option(
        parsing: .unconditional, help: "Android: App Standby deferrals of the working-set, frequent and rare buckets.")
    var standbyDeferrals = [
        model.platform.workingSetDeferral, model.platform.frequentDeferral, model.platform.rareDeferral,
    ]
    .map { "\($0 / .perHour)h" }.joined(separator: ",")  // in hours, as they are documented

    // Context defaults.
    @Option(parsing: .unconditional, help: "How long a context sample's value holds before the default applies.")
    var contextHold = DurationArgument(model.context.hold)
    @Option(parsing: .unconditional, help: "Battery percent assumed without a sample.") var defaultBattery = model
        .context.battery
    @Option(help: "Network assumed without a sample: wifi, cellular or none.") var defaultNetwork = model.context
        .network.name
    @Option(help: "Charging assumed without a sample (on or off).") var defaultCharging: OnOff =
        model.context.charging ? .on : .off

    /// The range checks, run by the command's `validate()`, not as this group's own `validate()`:
    /// ArgumentParser runs that while it decodes, when a value it refuses (`-6h`) is still among the
    /// arguments to look for help in, and prints the help (exit 0) for the `h` in it.
    func check() throws {
        for field in Self.fields { try field.check(self) }
        try Bounds.check(
            "--ios-wake-budget-min", iosWakeBudgetMin, 0...max(iosWakeBudgetMax, 1),
            note: iosWakeBudgetMax > 0 ? " (--ios-wake-budget-max)" : "")
        for field in Self.latterFields { try field.check(self) }
        _ = try deferrals()
        for field in Self.contextFields { try field.check(self) }
        guard !defaultNetwork.trimmingCharacters(in: .whitespaces).isEmpty, NetworkType(name: defaultNetwork) != nil
        else {
            throw ValidationError("--default-network '\(defaultNetwork)' is not wifi, cellular or none")
        }
        _ = try appCosts()
        if let users, users.isEmpty { throw ValidationError("--users: give names or a number") }
        if let users, let count = Int(users.trimmingCharacters(in: .whitespaces)) {
            try Bounds.check("--users", count, 1...1_000_000)
        }
        if let from, let to, to < from { throw ValidationError("--to \(to) is before --from \(from)") }
    }

    func deferrals() throws -> [Microseconds] {
        for part in standbyDeferrals.split(separator: ",") where Quantity.isUnitless(String(part)) {
            throw ValidationError("--standby-deferrals \(standbyDeferrals): \(Quantity.unitQuestion(String(part)))")
        }
        let parts = standbyDeferrals.split(separator: ",").map { Quantity.duration(String($0)) }
        guard parts.count == 3, parts.allSatisfy({ SettingRanges.standbyDeferral.contains($0 ?? -1) }) else {
            throw ValidationError(
                "--standby-deferrals '\(standbyDeferrals)' must be three durations of 0 to 365d, e.g. 2h,8h,24h")
        }
        return parts.map { $0! }
    }

    func appCosts() throws -> [String: AppFetchCost] {
        var out: [String: AppFetchCost] = [:]
        for item in appCost {
            let pieces = item.split(separator: "=", maxSplits: 1)
            let values = pieces.count == 2 ? pieces[1].split(separator: "/") : []
            if let duration = values.first, Quantity.isUnitless(String(duration)) {
                throw ValidationError("--app-cost \(item): \(Quantity.unitQuestion(String(duration)))")
            }
            guard pieces.count == 2, values.count == 2, let d = Quantity.duration(String(values[0])),
                SettingRanges.fetchDuration.contains(d), let b = Quantity.bytes(String(values[1])),
                SettingRanges.fetchBytes.contains(b)
            else {
                throw ValidationError("--app-cost '\(item)' must be APP=DURATION/SIZE, e.g. com.example.news=5s/300kB")
            }
            out[String(pieces[0])] = AppFetchCost(duration: d, bytes: b)
        }
        return out
    }

    /// The replay's platform, cost and context settings.
    func settings() throws -> ReplaySettings {
        var settings = ReplaySettings(platform: PlatformModel(kind: platform))
        for field in Self.fields + Self.latterFields + Self.contextFields { field.apply(self, &settings) }
        settings.cost.perApp = try appCosts()
        settings.platform.iosWakeBudgetMin = iosWakeBudgetMin
        let d = try deferrals()
        (settings.platform.workingSetDeferral, settings.platform.frequentDeferral, settings.platform.rareDeferral) =
            (d[0], d[1], d[2])
        settings.platform.lowBatteryPercent = lowBattery
        settings.context.network = NetworkType(name: defaultNetwork) ?? .wifi
        settings.context.charging = defaultCharging == .on
        return settings
    }

    /// Applies the app and day filters to a protocol.
    func restrict(_ evaluation: inout EvaluationProtocol) {
        if let apps {
            evaluation.apps = Set(
                apps.split(separator: ",").map { AppID(String($0).trimmingCharacters(in: .whitespaces)) })
        }
        evaluation.scoredFrom = from
        evaluation.scoredThrough = to
    }

    /// The users `--users` selects.
    var selection: UserSelection {
        guard let users else { return .all }
        if let n = Int(users.trimmingCharacters(in: .whitespaces)) { return .spread(n) }
        return .named(users.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) })
    }

    /// The comparison these options ask for (the database, protocol, policies, budgets and the
    /// run's own options given).
    func request(
        database path: String, evaluation: EvaluationProtocol, policies: [any FetchPolicy]?, budget: BudgetOptions,
        run: ComparisonRunOptions
    ) throws -> ComparisonRequest {
        var request = ComparisonRequest(database: path, evaluation: evaluation, settings: try settings())
        request.policies = policies
        request.users = selection
        request.shard = run.shard.flatMap(UserShard.init)
        request.perUser = run.perUser
        request.budgets = try budget.budgets()
        request.resamples = budget.resamples
        request.bootstrapSeed = budget.bootstrapSeed
        request.traceUser = run.traceUser
        request.traceDay = run.traceDay
        request.platformLines = run.platformLines
        return request
    }

    /// Replays `policies` over the database's users (``Comparison/run(_:progress:)``), with a
    /// progress bar on a terminal and the timings on stderr when asked for.
    func compare(
        database path: String, evaluation: EvaluationProtocol, policies: [any FetchPolicy]?, showProgress: Bool,
        budget: BudgetOptions, run: ComparisonRunOptions, partial: Bool = false
    ) throws -> ComparisonOutcome {
        var request = try request(
            database: path, evaluation: evaluation, policies: policies, budget: budget, run: run)
        request.partial = partial
        let outcome = try Comparison.run(request, progress: showProgress ? ProgressBar(unit: "users") : nil)
        if run.timings {
            for line in CompareRenderer.timings(outcome.run.timings) { Terminal.note(line) }
        }
        for warning in outcome.warnings { Terminal.warning(warning) }
        return outcome
    }
}

extension PlatformKind: CaseInsensitiveArgument {}

/// What one comparison run does beyond its population and models (`compare` only: `tune` replays
/// many runs and reports none of these): its shard, per-user rows, timings and the timeline's day.
struct ComparisonRunOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Replay only shard I of N of those users, by a stable hash of each user's name (e.g. 2/8).",
            valueName: "I/N"))
    var shard: String?

    @Flag(help: "Also report every policy per user (JSON `per_user`).")
    var perUser = false

    @Flag(help: "Print each policy's CPU time and launch·policy steps per second on stderr.")
    var timings = false

    @Flag(
        inversion: .prefixedNo,
        help: """
            Replay the headline's app-scope setting as iOS and Android run it (two more passes over the \
            users; the headline's platform lines). Off for a shard; a merge of shards has none (run \
            compare --platform ios|android --policies <the setting> for them).
            """)
    var platformLines = true

    @Option(
        help: "The user whose day the report's timeline shows (default: the user with the median launches per day).")
    var traceUser: String?

    @Option(help: "The local day of the timeline, YYYY-MM-DD (default: the user's busiest scored day).")
    var traceDay: CivilDate?

    func validate() throws { _ = try shard.map(UserShard.option) }
}

/// An option that sets one field of the replay's settings: its range check and where its value goes.
struct SettingOption {
    let check: (ReplayOptions) throws -> Void
    let apply: (ReplayOptions, inout ReplaySettings) -> Void

    static func number(
        _ name: String, _ option: KeyPath<ReplayOptions, Double>, _ field: WritableKeyPath<ReplaySettings, Double>,
        _ range: ClosedRange<Double>
    ) -> Self {
        Self(
            check: { try Bounds.check(name, $0[keyPath: option], range) },
            apply: { $1[keyPath: field] = $0[keyPath: option] })
    }

    static func count<T: FixedWidthInteger>(
        _ name: String, _ option: KeyPath<ReplayOptions, T>, _ field: WritableKeyPath<ReplaySettings, T>,
        _ range: ClosedRange<T>
    ) -> Self {
        Self(
            check: { try Bounds.check(name, $0[keyPath: option], range) },
            apply: { $1[keyPath: field] = $0[keyPath: option] })
    }

    static func duration(
        _ name: String, _ option: KeyPath<ReplayOptions, DurationArgument>,
        _ field: WritableKeyPath<ReplaySettings, Microseconds>, _ range: ClosedRange<Microseconds>
    ) -> Self {
        Self(
            check: { try Bounds.check(name, $0[keyPath: option], range) },
            apply: { $1[keyPath: field] = $0[keyPath: option].microseconds })
    }
}

extension ReplayOptions {
    /// The options that set one field each, in the order they are checked (up to
    /// `--ios-wake-budget-min`, whose range depends on `--ios-wake-budget-max`).
    static var fields: [SettingOption] {
        [
            .duration("--fetch-duration", \.fetchDuration, \.cost.fetchDuration, SettingRanges.fetchDuration),
            .count("--fetch-size", \.fetchSize.bytes, \.cost.fetchBytes, SettingRanges.fetchBytes),
            .number("--cellular-transfer-w", \.cellularTransferW, \.cost.cellularTransferWatts, SettingRanges.watts),
            .number("--cellular-promotion-w", \.cellularPromotionW, \.cost.cellularPromotionWatts, SettingRanges.watts),
            .number("--cellular-tail-w", \.cellularTailW, \.cost.cellularTailWatts, SettingRanges.watts),
            .number("--wifi-transfer-w", \.wifiTransferW, \.cost.wifiTransferWatts, SettingRanges.watts),
            .number("--wifi-promotion-w", \.wifiPromotionW, \.cost.wifiPromotionWatts, SettingRanges.watts),
            .number("--wifi-tail-w", \.wifiTailW, \.cost.wifiTailWatts, SettingRanges.watts),
            .duration("--cellular-promotion", \.cellularPromotion, \.cost.cellularPromotion, SettingRanges.radioState),
            .duration("--cellular-tail", \.cellularTail, \.cost.cellularTail, SettingRanges.radioState),
            .duration("--wifi-promotion", \.wifiPromotion, \.cost.wifiPromotion, SettingRanges.radioState),
            .duration("--wifi-tail", \.wifiTail, \.cost.wifiTail, SettingRanges.radioState),
            .number("--battery-wh", \.batteryWh, \.cost.batteryWattHours, SettingRanges.batteryWattHours),
            .number("--low-battery", \.lowBattery, \.cost.lowBatteryPercent, SettingRanges.percent),
            .duration("--fetch-budget", \.fetchBudget, \.platform.fetchBudget, SettingRanges.fetchBudget),
            .duration(
                "--ios-minimum-interval", \.iosMinimumInterval, \.platform.iosMinimumInterval,
                SettingRanges.iosMinimumInterval),
            .count("--push-rate", \.pushRate, \.platform.pushesPerHour, SettingRanges.pushRate),
            .count(
                "--daily-fetch-budget", \.dailyFetchBudget, \.platform.dailyFetchBudget, SettingRanges.dailyFetchBudget),
            .number(
                "--ios-wake-budget-per-launch", \.iosWakeBudgetPerLaunch, \.platform.iosWakeBudgetPerLaunch,
                SettingRanges.iosWakeBudgetPerLaunch),
            .count(
                "--ios-wake-budget-max", \.iosWakeBudgetMax, \.platform.iosWakeBudgetMax, SettingRanges.iosWakeBudgetMax
            ),
        ]
    }

    /// The options checked after `--ios-wake-budget-min`, before `--standby-deferrals`.
    static var latterFields: [SettingOption] {
        [
            .duration(
                "--ios-wake-budget-window", \.iosWakeBudgetWindow, \.platform.iosWakeBudgetWindow,
                SettingRanges.iosWakeBudgetWindow),
            .duration("--ios-system-lead", \.iosSystemLead, \.platform.iosSystemLead, SettingRanges.iosSystemLead),
            .duration(
                "--android-minimum-period", \.androidMinimumPeriod, \.platform.androidMinimumPeriod,
                SettingRanges.androidMinimumPeriod),
        ]
    }

    /// The context defaults' options, checked after `--standby-deferrals`.
    static var contextFields: [SettingOption] {
        [
            .duration("--context-hold", \.contextHold, \.context.hold, SettingRanges.contextHold),
            .number("--default-battery", \.defaultBattery, \.context.battery, SettingRanges.percent),
        ]
    }
}
