import FetchLabCore
import FetchLabResults
import Foundation
import Testing

@testable import FetchLabSimulation

/// Every policy declares the signals it reads (DOMAIN.md, "Who deploys a policy"), the replay shows
/// it only those (``SignalView``), and hiding what it did not declare changes none of its
/// decisions: the declaration is complete, so its scope (app, OS, clairvoyant) can be trusted.
@Suite struct SignalDeclarationTests {
    /// At least one setting of every family of the registry (the test fails when a family is
    /// added without one here), with the settings whose declarations differ.
    static let settings =
        "never,fixed(1h),ios-adaptive,workmanager,workmanager(1h,15m,unmetered),workmanager(24h,15m,none,aligned),"
        + "android-prefetch,predictive(10m,0.3),predictive(15m,0.2,gap+time-of-day),predictive-cost-aware(15m,0.2),"
        + "budgeted(3),budgeted(200j),learned(2),learned-cost-aware(40j),learned-app(2),push(3),notification-refresh,"
        + "notification-refresh(1h),oracle,budget-oracle(2)"

    @Test func everyFamilyHasASettingHere() throws {
        let tested = Set(try PolicyRegistry.parseList(Self.settings).map { ObjectIdentifier(type(of: $0)) })
        for family in PolicyRegistry.families {
            #expect(tested.contains(ObjectIdentifier(family)), "\(family.familyNames[0]) is not tested")
        }
    }

    /// The property: replayed with the undeclared signals hidden (the replay's way) and with every
    /// event, content update and the real device state shown, every policy makes the same
    /// fetches, refusals and stated probabilities, on every pair of users whose logs hold every
    /// kind of signal, under every platform.
    @Test(arguments: [PlatformKind.none, .ios, .android])
    func hidingTheUndeclaredSignalsChangesNoDecision(platform: PlatformKind) throws {
        var settings = ReplaySettings()
        settings.platform.kind = platform
        let users = ObservedEventsTests.users()
        var decided: [String: Int] = [:]
        for policy in try PolicyRegistry.parseList(Self.settings) {
            for user in users {
                for pair in user.pairs.indices {
                    let hidden = PolicyRunner.run(policy, pair: pair, of: user, settings: settings, logSkips: true)
                    let shown = PolicyRunner.run(
                        policy, pair: pair, of: user, settings: settings, logSkips: true, everyEvent: true)
                    #expect(hidden.fetches == shown.fetches, "\(policy.name), \(user.history.user), pair \(pair)")
                    #expect(hidden.skips == shown.skips, "\(policy.name), \(user.history.user), pair \(pair)")
                    #expect(hidden.stated.map(\.p) == shown.stated.map(\.p), "\(policy.name)")
                    decided[policy.name, default: 0] += shown.fetches.count
                }
            }
        }
        // Every policy but never decided something (else the comparison shows nothing).
        for (name, fetches) in decided where name != "never" { #expect(fetches > 0, "\(name) never fetched") }
    }

    /// The view is enforced, not trusted: a policy that declares nothing but acts on other apps'
    /// launches, unlocks and notifications is never shown them, nor the device's real state.
    @Test func aPolicyIsNotShownWhatItDidNotDeclare() throws {
        let user = ObservedEventsTests.users()[0]
        let settings = ReplaySettings()
        for pair in user.pairs.indices {
            let liar = PolicyRunner.run(Greedy(declared: []), pair: pair, of: user, settings: settings)
            let honest = PolicyRunner.run(
                Greedy(declared: Set(PolicySignal.allCases).subtracting([.future])), pair: pair, of: user,
                settings: settings)
            // Declaring nothing, it sees its own app's launches and closes only.
            let own = user.events.filter { $0.app == user.pairs[pair].app && $0.kind != .notification }
            #expect(liar.fetches.map(\.time) == own.filter { $0.time <= user.window.end }.map(\.time))
            #expect(honest.fetches.count > liar.fetches.count)
            // Declaring no context, it is told the neutral state (Wi-Fi), never the cellular one.
            let blind = PolicyRunner.run(
                Greedy(declared: [], onCellularOnly: true), pair: pair, of: user, settings: settings)
            let sighted = PolicyRunner.run(
                Greedy(declared: [.context], onCellularOnly: true), pair: pair, of: user, settings: settings)
            #expect(blind.fetches.isEmpty)
            #expect(!sighted.fetches.isEmpty && sighted.fetches.allSatisfy { $0.state.network == .cellular })
        }
    }

    @Test func scopesFollowFromTheSignals() throws {
        func scope(_ name: String) throws -> PolicyScope { try PolicyRegistry.parse(name)[0].scope }
        #expect(PolicyScope(signals: []) == .app)
        #expect(PolicyScope(signals: [.ownLaunches, .notifications, .contentUpdates, .context]) == .app)
        #expect(PolicyScope(signals: [.ownLaunches, .otherLaunches]) == .os)
        #expect(PolicyScope(signals: [.deviceSignals]) == .os)
        #expect(PolicyScope(signals: [.ownLaunches, .future]) == .clairvoyant)
        for app in [
            "fixed(1h)", "never", "ios-adaptive", "workmanager", "android-prefetch", "push", "learned-app(2)",
            "notification-refresh", "budgeted(2)", "predictive(15m,0.3,gap+time-of-day)",
        ] {
            #expect(try scope(app) == .app, "\(app)")
        }
        for os in ["learned(2)", "learned-cost-aware(40j)", "predictive(15m,0.3)", "predictive-cost-aware(15m,0.3)"] {
            #expect(try scope(os) == .os, "\(os)")
        }
        for c in ["oracle", "budget-oracle(4)"] { #expect(try scope(c) == .clairvoyant) }
        // A clairvoyant policy's scope agrees with what the figures treat as one.
        for p in try PolicyRegistry.parseList(Self.settings) { #expect((p.scope == .clairvoyant) == p.isClairvoyant) }
    }

    /// App-scope learned policies replayed together (one model per pair) decide as each alone.
    @Test(arguments: [PlatformKind.none, .android])
    func appLearnedPoliciesReplayedTogetherDecideAsAlone(platform: PlatformKind) {
        var settings = ReplaySettings()
        settings.platform.kind = platform
        let group = [0.5, 2, 5].map { AppLearnedPolicy(budget: $0) }
        for user in ObservedEventsTests.users() {
            for pair in user.pairs.indices {
                let together = PolicyRunner.run(appLearned: group, pair: pair, of: user, settings: settings)
                for (k, policy) in group.enumerated() {
                    let alone = PolicyRunner.run(policy, pair: pair, of: user, settings: settings)
                    #expect(together[k].fetches == alone.fetches, "\(policy.name), pair \(pair)")
                    #expect(together[k].skips == alone.skips)
                    #expect(together[k].stated.map(\.p) == alone.stated.map(\.p))
                }
            }
        }
    }

    /// notification-refresh refreshes at its own app's notifications and nowhere else.
    @Test func notificationRefreshFetchesAtTheAppsOwnNotifications() {
        let user = ObservedEventsTests.users()[1]
        var any = 0
        for pair in user.pairs.indices {
            let run = PolicyRunner.run(NotificationRefreshPolicy(), pair: pair, of: user, settings: ReplaySettings())
            let own = user.events.filter {
                $0.kind == .notification && $0.app == user.pairs[pair].app && $0.time <= user.window.end
            }
            #expect(run.fetches.map(\.time) == own.map(\.time))
            any += own.count
        }
        #expect(any > 0)
    }

    /// The JSON of a run carries each policy's signals and scope.
    @Test func theReportCarriesSignalsAndScope() throws {
        let policies = try PolicyRegistry.parseList("fixed(1h),learned(2),learned-app(2),oracle")
        let histories = ObservedEventsTests.users().map(\.history)
        let report = Simulator(evaluation: evaluation(warmUp: 1, minLaunches: 20)).compare(
            histories, policies: policies)
        #expect(report.policies.map(\.scope) == [.app, .os, .app, .clairvoyant])
        #expect(report.policies[2].signals == [.ownLaunches, .notifications])
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as! [String: Any]
        let rows = json["policies"] as! [[String: Any]]
        #expect(rows.map { $0["scope"] as? String } == ["app", "os", "app", "clairvoyant"])
        #expect(rows[2]["signals"] as? [String] == ["own_launches", "notifications"])
        #expect(rows[0]["signals"] as? [String] == [])
    }
}

/// Fetches at every event it is shown (and reads the state it is told): a policy that would read
/// whatever it is given.
private struct Greedy: FetchPolicy {
    var declared: Set<PolicySignal>
    var onCellularOnly = false
    var name: String { "greedy" }
    var family: String { "test" }
    var signals: Set<PolicySignal> { declared }
    var summary: String { "fetches at every event" }
    func makeScheduler(_ pair: PairInfo) -> (any FetchScheduler)? { GreedyScheduler(onCellularOnly: onCellularOnly) }
}

private struct GreedyScheduler: FetchScheduler {
    let onCellularOnly: Bool
    var nextWake: Instant? { nil }
    mutating func observe(_ event: UsageEvent, state: DeviceState) -> FetchRequest? {
        !onCellularOnly || state.network == .cellular ? .fetch : nil
    }
    mutating func wake(at time: Instant, state: DeviceState) -> FetchRequest? { nil }
}
