import ArgumentParser
import FetchLabCore
import FetchLabPredict
import FetchLabResults
import FetchLabSimulation
import FetchLabStore
import FetchLabWorkflows
import Foundation

/// The platform, cost model, context defaults and population of a replay (`compare`, `tune`, `demo`).
/// Every constant of the cost and platform models is an option; the defaults and their sources
/// are documented in Docs/platform-and-cost.md.
struct ReplayOptions: ParsableArguments {
    @Option(
        help:
            "Which platform grants the fetches: none (every fetch asked for happens: the pure policy, as DOMAIN.md's protocol measures it), ios or android."
    )
    var platform: PlatformKind = .none

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
    var fetchDuration = DurationArgument(.seconds(3))
    @Option(parsing: .unconditional, help: "How much a fetch downloads (e.g. 150kB).")
    var fetchSize = ByteSizeArgument(argument: "150kB")!
    @Option(
        help: ArgumentHelp(
            "An app's own fetch duration and size, APP=DURATION/SIZE (repeatable), e.g. com.example.podcast=20s/5MB.",
            valueName: "app=d/size"))
    var appCost: [String] = []
    @Option(parsing: .unconditional, help: "LTE transfer power, W.") var cellularTransferW = 1.288
    @Option(parsing: .unconditional, help: "LTE promotion time.") var cellularPromotion = DurationArgument(260_000)
    @Option(parsing: .unconditional, help: "LTE promotion power, W.") var cellularPromotionW = 1.210
    @Option(parsing: .unconditional, help: "LTE tail time.") var cellularTail = DurationArgument(11_576_000)
    @Option(parsing: .unconditional, help: "LTE tail power, W.") var cellularTailW = 1.060
    @Option(parsing: .unconditional, help: "Wi-Fi transfer power, W.") var wifiTransferW = 0.54
    @Option(parsing: .unconditional, help: "Wi-Fi promotion time.") var wifiPromotion = DurationArgument(79_000)
    @Option(parsing: .unconditional, help: "Wi-Fi promotion power, W.") var wifiPromotionW = 0.124
    @Option(parsing: .unconditional, help: "Wi-Fi tail time.") var wifiTail = DurationArgument(238_000)
    @Option(parsing: .unconditional, help: "Wi-Fi tail power, W.") var wifiTailW = 0.119
    @Option(parsing: .unconditional, help: "Battery capacity, Wh.") var batteryWh = 12.0
    @Option(parsing: .unconditional, help: "Low battery: below this percent and not charging.") var lowBattery = 20.0

    // Platform model.
    @Option(parsing: .unconditional, help: "iOS: the time budget of a background fetch or push; longer fetches expire.")
    var fetchBudget = DurationArgument(.seconds(30))
    @Option(parsing: .unconditional, help: "iOS: background fetches no closer than this.")
    var iosMinimumInterval = DurationArgument(.minutes(15))
    @Option(parsing: .unconditional, help: "iOS: silent pushes per hour per app.") var pushRate = 3
    @Option(parsing: .unconditional, help: "iOS: background fetches per app per day (0: no limit).")
    var dailyFetchBudget = 0
    @Option(
        parsing: .unconditional,
        help: "iOS: the daily wake budget per app, in background fetches per launch a day over the window.")
    var iosWakeBudgetPerLaunch = 1.0
    @Option(parsing: .unconditional, help: "iOS: the least daily wake budget of an app launched within the window.")
    var iosWakeBudgetMin = 1
    @Option(parsing: .unconditional, help: "iOS: the greatest daily wake budget of an app (0: no wake budget).")
    var iosWakeBudgetMax = 12
    @Option(
        parsing: .unconditional,
        help: "iOS: the wake budget follows the app's launches over this window before each day.")
    var iosWakeBudgetWindow = DurationArgument(.days(7))
    @Option(
        parsing: .unconditional,
        help: "iOS: how long before an expected launch the system runs a fetch for a requested interval.")
    var iosSystemLead = DurationArgument(.minutes(10))
    @Option(parsing: .unconditional, help: "Android: minimum period of periodic work.")
    var androidMinimumPeriod = DurationArgument(.minutes(15))
    @Option(
        parsing: .unconditional, help: "Android: App Standby deferrals of the working-set, frequent and rare buckets.")
    var standbyDeferrals = "2h,8h,24h"

    // Context defaults.
    @Option(parsing: .unconditional, help: "How long a context sample's value holds before the default applies.")
    var contextHold = DurationArgument(.hours(6))
    @Option(parsing: .unconditional, help: "Battery percent assumed without a sample.") var defaultBattery = 80.0
    @Option(help: "Network assumed without a sample: wifi, cellular or none.") var defaultNetwork = "wifi"
    @Option(help: "Charging assumed without a sample (on or off).") var defaultCharging: OnOff = .off

    /// The range checks, run by the command's `validate()`, not as this group's own `validate()`:
    /// ArgumentParser runs that while it decodes, when a value it refuses (`-6h`) is still among the
    /// arguments to look for help in, and prints the help (exit 0) for the `h` in it.
    func check() throws {
        try Bounds.check("--fetch-duration", fetchDuration, SettingRanges.fetchDuration)
        try Bounds.check("--fetch-size", fetchSize.bytes, SettingRanges.fetchBytes)
        for (option, watts) in [
            ("--cellular-transfer-w", cellularTransferW), ("--cellular-promotion-w", cellularPromotionW),
            ("--cellular-tail-w", cellularTailW), ("--wifi-transfer-w", wifiTransferW),
            ("--wifi-promotion-w", wifiPromotionW), ("--wifi-tail-w", wifiTailW),
        ] {
            try Bounds.check(option, watts, SettingRanges.watts)
        }
        for (option, d) in [
            ("--cellular-promotion", cellularPromotion), ("--cellular-tail", cellularTail),
            ("--wifi-promotion", wifiPromotion), ("--wifi-tail", wifiTail),
        ] {
            try Bounds.check(option, d, SettingRanges.radioState)
        }
        try Bounds.check("--battery-wh", batteryWh, SettingRanges.batteryWattHours)
        try Bounds.check("--low-battery", lowBattery, SettingRanges.percent)
        try Bounds.check("--fetch-budget", fetchBudget, SettingRanges.fetchBudget)
        try Bounds.check("--ios-minimum-interval", iosMinimumInterval, SettingRanges.iosMinimumInterval)
        try Bounds.check("--push-rate", pushRate, SettingRanges.pushRate)
        try Bounds.check("--daily-fetch-budget", dailyFetchBudget, SettingRanges.dailyFetchBudget)
        try Bounds.check("--ios-wake-budget-per-launch", iosWakeBudgetPerLaunch, SettingRanges.iosWakeBudgetPerLaunch)
        try Bounds.check("--ios-wake-budget-max", iosWakeBudgetMax, SettingRanges.iosWakeBudgetMax)
        try Bounds.check(
            "--ios-wake-budget-min", iosWakeBudgetMin, 0...max(iosWakeBudgetMax, 1),
            note: iosWakeBudgetMax > 0 ? " (--ios-wake-budget-max)" : "")
        try Bounds.check("--ios-wake-budget-window", iosWakeBudgetWindow, SettingRanges.iosWakeBudgetWindow)
        try Bounds.check("--ios-system-lead", iosSystemLead, SettingRanges.iosSystemLead)
        try Bounds.check("--android-minimum-period", androidMinimumPeriod, SettingRanges.androidMinimumPeriod)
        _ = try deferrals()
        try Bounds.check("--context-hold", contextHold, SettingRanges.contextHold)
        try Bounds.check("--default-battery", defaultBattery, SettingRanges.percent)
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
        var cost = CostModel()
        cost.fetchDuration = fetchDuration.microseconds
        cost.fetchBytes = fetchSize.bytes
        cost.perApp = try appCosts()
        cost.cellularTransferWatts = cellularTransferW
        cost.cellularPromotion = cellularPromotion.microseconds
        cost.cellularPromotionWatts = cellularPromotionW
        cost.cellularTail = cellularTail.microseconds
        cost.cellularTailWatts = cellularTailW
        cost.wifiTransferWatts = wifiTransferW
        cost.wifiPromotion = wifiPromotion.microseconds
        cost.wifiPromotionWatts = wifiPromotionW
        cost.wifiTail = wifiTail.microseconds
        cost.wifiTailWatts = wifiTailW
        cost.batteryWattHours = batteryWh
        cost.lowBatteryPercent = lowBattery
        var rules = PlatformModel(kind: platform)
        rules.fetchBudget = fetchBudget.microseconds
        rules.iosMinimumInterval = iosMinimumInterval.microseconds
        rules.pushesPerHour = pushRate
        rules.dailyFetchBudget = dailyFetchBudget
        rules.iosWakeBudgetPerLaunch = iosWakeBudgetPerLaunch
        rules.iosWakeBudgetMin = iosWakeBudgetMin
        rules.iosWakeBudgetMax = iosWakeBudgetMax
        rules.iosWakeBudgetWindow = iosWakeBudgetWindow.microseconds
        rules.iosSystemLead = iosSystemLead.microseconds
        rules.androidMinimumPeriod = androidMinimumPeriod.microseconds
        let d = try deferrals()
        (rules.workingSetDeferral, rules.frequentDeferral, rules.rareDeferral) = (d[0], d[1], d[2])
        rules.lowBatteryPercent = lowBattery
        var context = ContextDefaults()
        context.hold = contextHold.microseconds
        context.battery = defaultBattery
        context.network = NetworkType(name: defaultNetwork) ?? .wifi
        context.charging = defaultCharging == .on
        return ReplaySettings(platform: rules, cost: cost, context: context)
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
            for line in Self.timingTable(outcome.run).split(separator: "\n") { Terminal.note(String(line)) }
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

    func validate() throws {
        if let shard, UserShard(shard) == nil {
            throw ValidationError("--shard \(shard): give I/N with 1 ≤ I ≤ N ≤ 1,000,000 (e.g. 2/8)")
        }
    }
}

extension ReplayOptions {
    /// Per family: policies, CPU seconds, launch·policy steps per CPU second (launches of the
    /// evaluated pairs × policies), then the total.
    static func timingTable(_ run: ComparisonRun) -> String {
        var order: [String] = []
        var byFamily: [String: (count: Int, seconds: Double)] = [:]
        for (p, s) in zip(run.policies, run.cpuSeconds) {
            if byFamily[p.family] == nil { order.append(p.family) }
            byFamily[p.family, default: (0, 0)].count += 1
            byFamily[p.family, default: (0, 0)].seconds += s
        }
        let launches = Double(run.launchesReplayed)
        var lines = ["timings: \(run.launchesReplayed) launches of evaluated pairs; CPU seconds summed over threads"]
        func line(_ name: String, _ count: Int, _ seconds: Double) -> String {
            let rate = seconds > 0 ? launches * Double(count) / seconds / 1e6 : 0
            return "  \(name): \(count) polic\(count == 1 ? "y" : "ies"), \(String(format: "%.3f", seconds)) s, "
                + "\(String(format: "%.1f", rate)) M launch·policy steps/s"
        }
        for f in order { lines.append(line(f, byFamily[f]!.count, byFamily[f]!.seconds)) }
        lines.append(line("total", run.policies.count, run.cpuSeconds.reduce(0, +)))
        return lines.joined(separator: "\n")
    }
}
