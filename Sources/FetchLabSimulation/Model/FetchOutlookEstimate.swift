import FetchLabCore
import FetchLabPredict
import FetchLabResults

extension FetchOutlook {
    /// The outlook of a fetch at `t` from a user's context samples before `origin`: the device
    /// state at the same time of day on each of the last `days` days before the origin (a sample's
    /// value holding as the replay holds it, else the stated default), and the energy a lone fetch
    /// of `duration` would draw from the battery in each of those states, averaged.
    public static func estimate(
        at t: Instant, samples: [ContextSample], origin: Instant, duration: Microseconds,
        cost: CostModel = CostModel(), defaults: ContextDefaults = ContextDefaults(), days: Int = 14
    ) -> FetchOutlook {
        let timeline = ContextTimeline(samples: samples.filter { $0.time < origin }, defaults: defaults)
        // Whole days back from t, to before the origin.
        let back = max(1, Int((t - origin) / .perDay) + 1)
        var wifi = 0.0
        var cellular = 0.0
        var offline = 0.0
        var charging = 0.0
        var joules = 0.0
        for k in back..<(back + days) {
            let state = timeline.state(at: t - .days(Int64(k)))
            switch state.network {
            case .wifi: wifi += 1
            case .cellular: cellular += 1
            case .none: offline += 1
            }
            if state.charging {
                charging += 1
            } else {
                joules += cost.energy(of: [RadioUse(start: .epoch, duration: duration, network: state.network)])[0]
            }
        }
        let n = Double(days)
        return FetchOutlook(
            wifi: wifi / n, cellular: cellular / n, offline: offline / n, charging: charging / n, joules: joules / n,
            days: days)
    }
}
