import Foundation
import Testing
import _FetchLabTestSupport

/// Every option, policy parameter, grid and objective that takes a duration refuses values no
/// duration can be — huge, negative, infinite, not a number — in one line with exit 64, never a
/// crash (they used to die with SIGILL converting a Double to Int64).
@Suite struct HugeDurationTests {
    let dir = TemporaryDirectory()

    static let values = ["1e20", "1e300", "-1e300", "inf", "nan", "9223372036854775807", "99999999999999999999h"]

    /// A command line for each place a duration is read, `X` standing for the value.
    static let places: [[String]] = [
        ["compare", "--tau=X"], ["compare", "--fetch-duration=X"], ["compare", "--cellular-promotion=X"],
        ["compare", "--cellular-tail=X"], ["compare", "--wifi-promotion=X"], ["compare", "--wifi-tail=X"],
        ["compare", "--fetch-budget=X"], ["compare", "--ios-minimum-interval=X"],
        ["compare", "--android-minimum-period=X"], ["compare", "--context-hold=X"],
        ["compare", "--ios-wake-budget-window=X"], ["compare", "--ios-system-lead=X"],
        ["compare", "--standby-deferrals=X,8h,24h"], ["compare", "--app-cost=com.a=X/5MB"],
        ["compare", "--policies=fixed(X)"], ["compare", "--policies=ios-adaptive(X)"],
        ["compare", "--policies=ios-adaptive(10m,X)"], ["compare", "--policies=workmanager(X,15m,none)"],
        ["compare", "--policies=workmanager(1h,X,none)"], ["compare", "--policies=android-prefetch(X,4h)"],
        ["compare", "--policies=android-prefetch(7h,X)"], ["compare", "--policies=predictive(X,0.5)"],
        ["import", "--session-gap=X", "x.csv"], ["import", "--reorder-window=X", "x.csv"],
        ["tune", "--family=fixed", "--grid=interval=X"], ["tune", "--family=fixed", "--maximize=fresh@X"],
        ["tune", "--family=fixed", "--subject-to=fresh@X>=0.5"], ["tune", "--family=fixed", "--time-budget=X"],
        ["predict", "--horizon=X"], ["predict", "--lead=X"], ["predict", "--freshness=X"],
    ]

    @Test(arguments: HugeDurationTests.places)
    func aDurationNoSpanCanBeIsAOneLineUsageError(place: [String]) throws {
        for value in Self.values {
            let arguments =
                place.map { $0.replacingOccurrences(of: "X", with: value) } + ["--db", dir.path("none.sqlite")]
            let r = try dir.fetchlab(arguments)
            #expect(r.status == 64, "\(arguments): \(r.status) \(r.err)")
            #expect(r.err.split(separator: "\n").count == 1, "\(arguments): \(r.err)")
            #expect(r.err.hasPrefix("fetchlab: error: "), "\(arguments): \(r.err)")
            #expect(!r.err.contains("Fatal error") && !r.err.contains("Backtrac"), "\(arguments)")
        }
    }
}
