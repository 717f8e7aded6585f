import FetchLabCore
import FetchLabResults
import Testing

@testable import FetchLabSimulation

/// A family declares in its own file how it is parsed, tuned and carried to the platforms; the
/// registry, the search space and the platform check only look those declarations up.
@Suite struct FamilyDeclarationTests {
    @Test func everyTunableFamilysDefaultGridIsPoliciesOfThatFamily() throws {
        let tunable = PolicyRegistry.tunableFamilies.map { $0.familyNames[0] }
        #expect(
            Set(tunable) == ["fixed", "predictive", "budgeted", "learned", "learned-app", "workmanager", "ios-adaptive"])
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

    /// The results module names the floor, the baseline and the oracles by their canonical names
    /// without depending on the policies: those names must be the policies' own, and every
    /// clairvoyant family's role must say so.
    @Test func theRolesNameThePoliciesOwnFamilies() throws {
        #expect(NeverPolicy.familyNames[0] == PolicyRole.floorFamily)
        #expect(FixedIntervalPolicy.familyNames[0] == PolicyRole.baselineFamily)
        #expect(OraclePolicy.familyNames[0] == PolicyRole.oracleFamily)
        #expect(BudgetOraclePolicy.familyNames[0] == PolicyRole.budgetOracleFamily)
        let standard = PolicyRegistry.standard()
        #expect(Set(PolicyRegistry.families.map { $0.familyNames[0] }).isSubset(of: standard.map(\.family)))
        for policy in standard {
            #expect((PolicyRole(family: policy.family) == .clairvoyant) == policy.isClairvoyant, "\(policy.name)")
        }
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
        let settings = PlatformSetting.translate(fixed)
        #expect(settings.map(\.platform) == [.ios, .android])
        #expect(settings[0].snippet.contains("setMinimumBackgroundFetchInterval(3600)"))
        let predictive = try #require(try PolicyRegistry.parse("predictive(10m,0.3)").first)
        #expect(PlatformSetting.translate(predictive).count == 3)
        // A policy whose family declares no platform settings gives none.
        #expect(PlatformSetting.translate(OraclePolicy()).isEmpty)
    }
}
