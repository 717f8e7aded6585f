import ArgumentParser
import FetchLabSimulation

/// The budgets freshness is read at (`compare`, `demo`): the table's budgets and the headline's.
struct BudgetOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Budgets in fetches per app per day, comma-separated: the headline is read at the first, the table "
                + "shows them with the standard 0.5, 1, 2, 5, 10 (default: 2).",
            valueName: "list"))
    var budget: String?

    @Option(
        parsing: .unconditional,
        help: "Seed of the bootstrap over users that gives the 95 % intervals (0 to 18446744073709551615).")
    var bootstrapSeed: UInt64 = 1

    @Option(parsing: .unconditional, help: "Bootstrap resamples (0: no intervals; 10 to 100,000 otherwise).")
    var resamples = 1_000

    /// (Run by the command's `validate()`; see ``ReplayOptions/check()``.)
    func check() throws {
        _ = try budgets()
        if resamples != 0 { try Bounds.check("--resamples", resamples, SettingRanges.resamples) }
    }

    /// The budgets given (nil: none), each a number from 0.01 to 1,000.
    func budgets() throws -> [Double]? {
        guard let budget else { return nil }
        let parts = budget.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        return try parts.map { part in
            guard let x = Double(part), x.isFinite, SettingRanges.budget.contains(x) else {
                throw ValidationError(
                    "--budget '\(part)' is not a number of fetches per app per day from 0.01 to 1000")
            }
            return x
        }
    }
}
