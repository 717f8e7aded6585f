import FetchLabSimulation
import Foundation
import Testing
import _FetchLabTestSupport

/// A mistyped command or policy name gets the closest names in its one line (issue 25), not
/// ArgumentParser's bare "Unexpected argument" nor every policy form.
@Suite struct DidYouMeanTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("none.sqlite") }

    @Test func aMistypedCommandGetsTheClosest() throws {
        try dir.expectUsageError(["comapre"], ["Unexpected argument 'comapre'; did you mean 'compare'?"])
        // What ArgumentParser meets first after the word (an option of the command meant) does not hide it.
        try dir.expectUsageError(["comapre", "--db", db], ["'comapre'; did you mean 'compare'?"])
        try dir.expectUsageError(["runs", "shwo"], ["did you mean 'show'?"])
        // Nothing close: ArgumentParser's line as it was.
        let far = try dir.expectUsageError(["xyzzy"], ["Unexpected argument 'xyzzy'"])
        #expect(!far.err.contains("did you mean"), "\(far.err)")
    }

    /// A mistyped value of an enumerated option lists the values once (not again as the option's
    /// help) and suggests the closest.
    @Test func aMistypedFormatListsItsValuesOnceAndSuggestsTheClosest() throws {
        let typo = try dir.expectUsageError(
            ["compare", "--db", db, "--format", "jsn"],
            ["The value 'jsn' is invalid for '--format <format>'", "; did you mean 'json'?"])
        #expect(typo.err.components(separatedBy: "markdown").count == 2, "\(typo.err)")
        #expect(!typo.err.contains("expected:"), "\(typo.err)")
        let sort = try dir.expectUsageError(["compare", "--db", db, "--sort", "fresht"], ["did you mean 'fresh'?"])
        #expect(sort.err.components(separatedBy: "energy").count == 2, "\(sort.err)")
    }

    @Test func aMistypedPolicyGetsTheClosestNamesNotEveryForm() throws {
        let typo = try dir.expectUsageError(
            ["compare", "--db", db, "--policies", "never,fixd(15m)"],
            ["--policies", "unknown policy 'fixd(15m)'", "did you mean fixed(T) (e.g. fixed(15m), fixed(1h,4h))?"])
        #expect(!typo.err.contains("budget-oracle"), "\(typo.err)")
        let far = try dir.expectUsageError(["compare", "--db", db, "--policies", "zzzzzzz"], ["the closest names: "])
        #expect(far.err.count < 200, "\(far.err)")
        #expect(!PolicyRegistry.forms.isEmpty && !far.err.contains(PolicyRegistry.forms))
    }
}
