import ArgumentParser
import FetchLabCore
import FetchLabReport
import FetchLabSimulation
import FetchLabTerminal
import FetchLabWorkflows

struct TuneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tune",
        abstract: "Tune a policy family's parameters on training days and measure them on held-out days.",
        discussion: """
            Every setting of the grid is an ordinary policy (its canonical name, e.g. predictive(10m,0.3)). \
            The setting is chosen on the training part only (by default the first 70 % of the scored days; \
            --train-until DATE, --folds K for K expanding-window folds, or --split users: leave one user out \
            below 10 users, 70 % of the users otherwise), then it and the best fixed interval (15m to 24h) \
            chosen the same way are measured on the held-out part. With --maximize fresh@τ the settings rank by \
            their gain over the fixed baseline on the same users and days (fresh@τ minus what a fixed interval \
            gives at the setting's own fetches/app/day), and the output gives the chosen setting's fresh@τ and \
            gain, training → held out, each with a 95 % bootstrap interval, and warns when the held-out gain \
            leaves the training interval or a fold's pick breaks a constraint on its held-out part. With folds, a setting's score is its mean \
            over the training parts and it must meet the constraints on every one; the constraints are checked \
            again on every test part and the output says how often they held, with the test users, launches \
            and a 95 % bootstrap interval over test users. A grid with no setting within the constraints is \
            widened toward them, or the run says why not in one line. \
            Families and default grids: \(SearchSpace.Family.defaultGrids). \
            The output also gives a setting per app (chosen together under the constraints and replayed as \
            one per-app policy) and per group of users (light, moderate, heavy by launches per day). \
            The run is stored in the database (tables tune_run and tune_setting, views tune_runs and \
            tune_settings); `fetchlab runs show-tune N` prints it again.
            """
    )

    @OptionGroup var database: DatabaseOptions

    @Option(help: ArgumentHelp("The family to tune: \(SearchSpace.Family.namesInWords).", valueName: "family"))
    var family: String

    @Option(help: ArgumentHelp("The values per parameter, e.g. \"lead=5m,10m;threshold=0.2,0.3\".", valueName: "grid"))
    var grid: String?

    @Option(
        help:
            "The search: grid (every setting), random (--samples settings), coordinate (one parameter at a time) or halving (successive halving over users)."
    )
    var search: SearchMethodArgument = .grid

    @Option(parsing: .unconditional, help: "Settings the random search draws (1 to 10,000).") var samples = 10
    @Option(parsing: .unconditional, help: "The random search's seed (0 to 18446744073709551615).") var seed: UInt64 = 1

    @Option(help: ArgumentHelp("Maximise this metric: fresh@τ (e.g. fresh@15m).", valueName: "metric"))
    var maximize: String?
    @Option(help: ArgumentHelp("Minimise this metric: energy, battery, cellular or fetches.", valueName: "metric"))
    var minimize: String?

    @Option(
        help: ArgumentHelp(
            "Constraints, e.g. \"battery<=1%/day,cellular<=5MB/day,fresh@15m>=0.6,fetches<=5\".", valueName: "list"))
    var subjectTo: String?

    @Option(help: "Train through this local day (YYYY-MM-DD), test on the days after it.") var trainUntil: CivilDate?
    @Option(parsing: .unconditional, help: "Expanding-window time folds (2 to 20; 1: one split).") var folds = 1
    @Option(
        help:
            "Split by time (days) or by users (leave one user out below 10 users, else 70 % train by a hash of the name)."
    )
    var split: SplitArgument = .time

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Stop starting search rounds once this much time has passed (e.g. 90s, 10m); the best setting found is still measured.",
            valueName: "duration"))
    var timeBudget: DurationArgument?

    @Option(
        parsing: .unconditional,
        help:
            "Users kept in memory between passes (about 0.35 MB each for 90 days); the others are kept compactly in a temporary file in $TMPDIR (0 to 1,000,000)."
    )
    var keepUsers = 10_000

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "At most this much memory of users' histories kept between passes (e.g. 500MB, 2GB): it bounds tune's memory whatever the population's size; the users past it are kept compactly in a temporary file in $TMPDIR.",
            valueName: "size"))
    var keepMemory = ByteSizeArgument(argument: "1GB")!

    @Option(
        help: ArgumentHelp(
            "Replay the search's settings (grid or random) on shard I of N of the training users only, by a stable hash of each user's name, and write them to --partial: a tune given every shard's partial (--search-from) then makes the choice one process makes.",
            valueName: "I/N"))
    var shard: String?

    @Option(
        help: ArgumentHelp("With --shard: the file the shard's part of the search is written to.", valueName: "file"))
    var partial: String?

    @Option(
        parsing: .upToNextOption,
        help: ArgumentHelp(
            "Take the search's replays from these shards' partials (tune --shard I/N --partial FILE, every shard once, the same options and database) and run the rest of the tune here.",
            valueName: "file"))
    var searchFrom: [String] = []

    @OptionGroup var output: TuneOutputOptions

    @OptionGroup var store: StoreOptions

    @OptionGroup(title: "Population, platform, cost and context") var replay: ReplayOptions

    func validate() throws {
        try replay.check()
        if let shard {
            _ = try UserShard.option(shard)
            guard partial != nil else {
                throw ValidationError("--shard \(shard) needs --partial FILE, the file its part of the search goes to")
            }
            guard searchFrom.isEmpty else { throw ValidationError("--shard and --search-from exclude each other") }
        } else if partial != nil {
            throw ValidationError("--partial goes with --shard I/N (tune writes a partial of one shard's search)")
        }
        if shard != nil || !searchFrom.isEmpty {
            let option = shard != nil ? "--shard" : "--search-from"
            guard search == .grid || search == .random else {
                throw ValidationError(
                    "\(option): a \(search.method.rawValue) search cannot be sharded (each round depends on the last); "
                        + "use --search grid or random")
            }
            guard timeBudget == nil else { throw ValidationError("\(option) takes no --time-budget") }
        }
        try output.file.checkOutputs(database: database.db, also: [("--partial", partial)])
        try Bounds.check("--samples", samples, 1...10_000)
        try Bounds.check("--folds", folds, 1...20)
        try Bounds.check("--keep-users", keepUsers, 0...1_000_000)
        if let timeBudget { try Bounds.check("--time-budget", timeBudget, 0 ... .days(30)) }
        _ = try Exit.validating { try tuner() }
        if split == .users && (folds > 1 || trainUntil != nil) {
            throw ValidationError("--split users takes no --folds or --train-until")
        }
        if trainUntil != nil && folds > 1 { throw ValidationError("--train-until and --folds exclude each other") }
    }

    /// The tuner the options describe (without its users).
    func tuner() throws -> Tuner {
        // A grid, objective or constraint that cannot be read is a TuningError .invalid: a usage
        // error, reported at the root like every module's error.
        let space = try SearchSpace.parse(family: family, grid: grid)
        let objective: Objective
        switch (maximize, minimize) {
        case (let m?, nil): objective = Objective(metric: try TuningMetric.parse(m), maximize: true)
        case (nil, let m?): objective = Objective(metric: try TuningMetric.parse(m), maximize: false)
        case (nil, nil): objective = Objective(metric: .fresh(.minutes(15)), maximize: true)
        default: throw ValidationError("give --maximize or --minimize, not both")
        }
        let constraints = try subjectTo.map { try TuningConstraint.parseList($0) } ?? []
        var evaluation = EvaluationProtocol()
        replay.restrict(&evaluation)
        var tuner = Tuner(
            simulator: Simulator(evaluation: evaluation, settings: try replay.settings()), space: space,
            objective: objective, constraints: constraints)
        tuner.method = search.method
        tuner.samples = samples
        tuner.seed = seed
        tuner.split = split == .users ? .users : .time(trainUntil: trainUntil, folds: folds)
        return tuner
    }

    func run() throws {
        let bar = ProgressBar(unit: "user replays")
        defer { bar.finish() }
        if let shard = shard.flatMap(UserShard.init), let partial {
            let made = try Tuning.searchShard(
                try tuner(), database: database.db, users: replay.selection, keepUsers: keepUsers,
                keepBytes: Int(clamping: keepMemory.bytes), shard: shard, partialPath: partial, progress: bar)
            bar.finish()
            try output.emit(TuneOutputOptions.shardLine(made, json: output.format == .json))
            return
        }
        let outcome = try Tuning.run(
            try tuner(), database: database.db, users: replay.selection, keepUsers: keepUsers,
            keepBytes: Int(clamping: keepMemory.bytes),
            timeBudget: timeBudget?.microseconds, search: searchFrom, progress: bar)
        let (result, platform) = (outcome.result, outcome.platform)
        let stored =
            store.noStore
            ? .skipped : RunRecorder.store(result, platform: platform, path: database.db, messages: .terminal)
        try output.emit(output.render(result, platform: platform, runID: stored.id, source: database.db))
        try stored.requireStored()
    }
}
