import FetchLabCore
import FetchLabResults
import Foundation
import Testing

@testable import FetchLabSimulation

/// A family declares in its own file how it is parsed, tuned and carried to the platforms; the
/// registry, the search space and the platform check only look those declarations up.
@Suite struct FamilyDeclarationTests {
    @Test func everyTunableFamilysDefaultGridIsPoliciesOfThatFamily() throws {
        let tunable = PolicyRegistry.tunableFamilies.map { $0.familyNames[0] }
        #expect(
            Set(tunable) == [
                "fixed", "predictive", "budgeted", "learned", "learned-app", "workmanager", "ios-adaptive",
            ])
        #expect(SearchSpace.Family.allCases.map(\.rawValue) == tunable)
        for name in tunable {
            let space = try SearchSpace.parse(family: name, grid: nil)
            #expect(space.axes.map(\.name) == space.family.parameters.map(\.name))
            for setting in space.settings {
                #expect(try space.policy(setting).family == (name == "predictive" ? "predictive" : name), "\(name)")
            }
        }
        // A family that declares no tuning cannot be tuned, and says which can.
        #expect(throws: TuningError.self) { try SearchSpace.parse(family: "oracle", grid: nil) }
    }

    /// The standard set is a list of values; the text `compare --help` shows is what it parses
    /// to, policy for policy (a new setting in one and not the other fails here).
    @Test func theStandardSetIsTheValuesItsTextNames() throws {
        let parsed = try PolicyRegistry.parseList(PolicyRegistry.standardNames)
        let values = PolicyRegistry.standard()
        #expect(values.map(\.name) == parsed.map(\.name))
        #expect(values.map(\.family) == parsed.map(\.family))
        #expect(values.map(\.scope) == parsed.map(\.scope))
        for (v, p) in zip(values, parsed) {
            #expect(type(of: v) == type(of: p), "\(v.name)")
        }
        #expect(!values.isEmpty)
        #expect(Set(values.map(\.name)).count == values.count, "a standard policy is listed twice")
    }

    /// Each policy declares its role; the results module reads a role back from JSON by the
    /// family's name and signals: for every standard policy the two agree, and the replay carries
    /// the declared one into its result.
    @Test func theDeclaredRolesAreTheOnesReadBack() throws {
        #expect(NeverPolicy().role == .floor)
        #expect(FixedIntervalPolicy(interval: .hours(1)).role == .baseline)
        #expect(OraclePolicy().role == .bound)
        #expect(BudgetOraclePolicy(budget: 2).role == .clairvoyant)
        #expect(PolicyRole.families[.floor] == NeverPolicy.familyNames[0])
        #expect(PolicyRole.families[.baseline] == FixedIntervalPolicy.familyNames[0])
        #expect(PolicyRole.families[.bound] == OraclePolicy.familyNames[0])
        #expect(PolicyRole.families[.clairvoyant] == BudgetOraclePolicy.familyNames[0])
        let standard = PolicyRegistry.standard()
        #expect(Set(PolicyRegistry.families.map { $0.familyNames[0] }).isSubset(of: standard.map(\.family)))
        for policy in standard {
            #expect(
                PolicyRole(reading: policy.family, signals: policy.signals.sorted()) == policy.role, "\(policy.name)")
            #expect(policy.isClairvoyant == (policy.scope == .clairvoyant), "\(policy.name)")
        }
        // A per-app policy that assigns an oracle reads the future.
        let perApp = PerAppPolicy(assignments: ["a": OraclePolicy()], fallback: NeverPolicy())
        #expect(perApp.role == .clairvoyant && perApp.isClairvoyant)
    }

    @Test func wideningIsWhatTheFamilyDeclares() throws {
        let fixed = try #require(SearchSpace.Family(rawValue: "fixed"))
        #expect(fixed.widened("interval", ["15m", "1h"], cheaper: true) == "2h")
        #expect(fixed.widened("interval", ["15m", "1h"], cheaper: false) == "450s")
        let predictive = try #require(SearchSpace.Family(rawValue: "predictive"))
        #expect(predictive.widened("lead", ["5m"], cheaper: true) == nil)  // a lead does not move the fetches one way
        #expect(predictive.widened("threshold", ["0.2", "0.4"], cheaper: true) == "0.7")
        #expect(SearchSpace.Family(rawValue: "budgeted")?.widened("k", ["2", "4"], cheaper: true) == "1")
    }

    @Test func platformSettingsComeFromThePolicysOwnDeclaration() throws {
        let fixed = try #require(try PolicyRegistry.parse("fixed(1h)").first)
        let settings = PlatformTranslation.translate(fixed)
        #expect(settings.map(\.platform) == [.ios, .android])
        #expect(settings[0].setting.snippet.contains("setMinimumBackgroundFetchInterval(3600)"))
        let predictive = try #require(try PolicyRegistry.parse("predictive(10m,0.3)").first)
        #expect(PlatformTranslation.translate(predictive).count == 3)
        // A policy whose family declares no platform settings gives none.
        #expect(PlatformTranslation.translate(OraclePolicy()).isEmpty)
    }

    /// A translation carries its model as a value; the setting shows the model's canonical name,
    /// which reads back to the same policy (a stored run's setting is still a policy), and only
    /// push models make a setting silent push, which its JSON reads back.
    @Test func translationsCarryTheirModelsAsValues() throws {
        var translations = PlatformRegistryFixtures.translatable.flatMap { PlatformTranslation.translate($0) }
        translations.append(PlatformTranslation.silentPush())
        #expect(translations.count > 10)
        for t in translations {
            #expect(t.setting.model == t.model.name)
            let read = try #require(try PolicyRegistry.parse(t.setting.model).first)
            #expect(read.name == t.model.name)
            #expect(t.setting.isSilentPush == (t.model is PushPolicy), "\(t.setting.setting)")
            let back = try JSONDecoder().decode(PlatformSetting.self, from: JSONEncoder().encode(t.setting))
            #expect(back == t.setting)
        }
        #expect(translations.contains { $0.setting.isSilentPush && $0.platform == .android })
        #expect(PlatformTranslation.silentPush().setting.model == "push(3)")
        // fixed(1h) on Android is periodic work with a 15-minute flex, as a value.
        let android = try #require(PlatformTranslation.translate(FixedIntervalPolicy(interval: .hours(1))).last)
        #expect((android.model as? WorkManagerPolicy)?.period == .hours(1))
        #expect(android.setting.model == "workmanager(1h,15m,none)")
    }
}

/// One policy of each family that declares platform settings, with the settings that differ by parameter.
enum PlatformRegistryFixtures {
    static var translatable: [any FetchPolicy] {
        PolicyRegistry.standard() + [FixedIntervalPolicy(interval: .minutes(5)), PushPolicy(rate: 0.5)]
    }
}
