import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

/// A duration typed on the command line needs its unit (`--tau 15`: 15 what?), everywhere one is
/// read; `0` is zero in every unit (issue 25).
@Suite struct UnitlessDurationTests {
    let dir = TemporaryDirectory()
    var db: String { dir.path("none.sqlite") }

    @Test(arguments: HugeDurationTests.places)
    func aBareNumberIsNotADuration(place: [String]) throws {
        let arguments = place.map { $0.replacingOccurrences(of: "X", with: "15") } + ["--db", db]
        try dir.expectUsageError(arguments, ["15 what? give a unit, e.g. 15m"])
    }

    @Test func zeroAndDurationsWithAUnitAreRead() throws {
        for arguments in [
            [
                "compare", "--tau", "15m", "--ios-system-lead", "0", "--context-hold", "0", "--policies",
                "fixed(900s),ios-adaptive(0,15m)",
            ],
            ["tune", "--family", "fixed", "--grid", "interval=15m,1h", "--maximize", "fresh@15m"],
            ["predict", "--horizon", "1h30m"],
        ] {
            let r = try dir.fetchlab(arguments + ["--db", db])
            #expect(r.status == 1 && r.err.contains("no such database"), "\(arguments): \(r.err)")
        }
    }

    @Test func theCoreTellsABareNumber() {
        for text in ["15", " 1.5 ", "-15", "1e3"] { #expect(Quantity.isUnitless(text), "\(text)") }
        for text in ["0", "0.0", "15m", "1h30m", "inf", "nan", "", "fifteen"] {
            #expect(!Quantity.isUnitless(text), "\(text)")
        }
        // A file that writes plain seconds is still read so.
        #expect(Quantity.duration("600") == .minutes(10))
        #expect(Quantity.unitQuestion("15") == "15 what? give a unit, e.g. 15m")
    }
}
