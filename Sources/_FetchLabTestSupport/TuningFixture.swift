/// A hand-made tuning run, as the JSON `TuningResult` and `[PlatformOutcome]` decode from (the
/// encoder's default keys): two time folds of a predictive grid under a constraint. Fold 1 tries
/// three settings (one breaks the constraint; two on the Pareto front), chooses
/// `predictive(10m,0.3)` and measures it against `fixed(2h)`, which it did not try; fold 2 tries
/// two and has no feasible fixed interval. One platform snippet holds markup, to be escaped.
public enum TuningFixture {
    static func summary(
        _ objective: Double, _ fresh: Double, _ joules: Double, _ mb: Double, _ fetches: Double, _ n: Int
    )
        -> String
    {
        """
        {"objective":\(objective),"fresh_15m":\(fresh),"energyJoulesPerDay":\(joules),"batteryPercentPerDay":\(joules / 100),\
        "cellularMBPerDay":\(mb),"fetchesPerAppDay":\(fetches),"scoredLaunches":\(n)}
        """
    }

    static func tried(_ name: String, _ values: String, _ s: String, feasible: Bool, pareto: Bool) -> String {
        #"{"name":"\#(name)","values":"\#(values)","train":\#(s),"feasible":\#(feasible),"pareto":\#(pareto)}"#
    }

    public static let resultJSON: String = {
        let a = summary(0.7, 0.7, 40, 0.3, 3, 900)
        let b = summary(0.62, 0.62, 12.5, 0.1, 1, 900)
        let c = summary(0.5, 0.5, 20, 0.2, 2, 900)
        let fold1 = """
            {"label":"train 2024-03-08 to 2024-03-20, test 2024-03-21 to 2024-03-26",\
            "tried":[\(tried("predictive(5m,0.2)", "lead=5m threshold=0.2", a, feasible: false, pareto: true)),\
            \(tried("predictive(10m,0.3)", "lead=10m threshold=0.3", b, feasible: true, pareto: true)),\
            \(tried("predictive(10m,0.4)", "lead=10m threshold=0.4", c, feasible: true, pareto: false))],\
            "chosen":"predictive(10m,0.3)","bestFixed":"fixed(2h)","chosenTrain":\(b),\
            "bestFixedTrain":\(summary(0.3, 0.3, 25, 0.4, 12, 900)),"chosenTest":\(summary(0.6, 0.6, 11, 0.09, 0.9, 400)),\
            "bestFixedTest":\(summary(0.25, 0.25, 26, 0.5, 12, 400)),"replays":3}
            """
        let fold2 = """
            {"label":"train 2024-03-08 to 2024-03-26, test 2024-03-27 to 2024-03-31",\
            "tried":[\(tried("predictive(10m,0.3)", "lead=10m threshold=0.3", b, feasible: true, pareto: true)),\
            \(tried("predictive(10m,0.4)", "lead=10m threshold=0.4", c, feasible: true, pareto: false))],\
            "chosen":"predictive(10m,0.3)","chosenTrain":\(b),"chosenTest":\(summary(0.64, 0.64, 13, 0.11, 1.1, 300)),\
            "replays":2}
            """
        return """
            {"family":"predictive","method":"grid","objective":"maximize fresh@15m","constraints":["fetches<=2/app/day"],\
            "folds":[\(fold1),\(fold2)]}
            """
    }()

    public static let platformJSON = """
        [{"setting":{"platform":"ios","setting":"BGAppRefreshTaskRequest <every> launch","model":"ios-adaptive(10m,15m)",\
        "snippet":"let r = BGAppRefreshTaskRequest(identifier: \\"a\\")\\n// <script>alert(1)</script>","note":"a & b"},\
        "fresh":0.55,"fetchesPerAppDay":1.2,"joulesPerDay":9.5,"skipped":3},\
        {"setting":{"platform":"android","setting":"PeriodicWorkRequest every 2 h","model":"workmanager(2h,15m,none)",\
        "snippet":"val request = PeriodicWorkRequestBuilder<RefreshWorker>(2, TimeUnit.HOURS).build()"},\
        "fresh":0.3,"fetchesPerAppDay":12,"joulesPerDay":25,"skipped":0}]
        """
}
