import FetchLabCore

/// The fixed-interval baseline in closed form (DOMAIN.md, "Evaluation protocol"): what a fixed
/// interval gives in expectation over its phase. A fixed interval T fetches 1440/T times a day
/// whatever its phase, and a target launch (one only a background fetch can make fresh) is fresh
/// when a fetch falls in the τ before it, which for a phase uniform at random happens with
/// probability min(1, τ/T). At B fetches per app per day the baseline is therefore
/// (launches fresh without fetches + targets · min(1, τ·B / 1440 min)) / scored launches: a straight
/// line in B up to 1440/τ, then every launch.
public enum FixedBaselineLine {
    /// The chance that a target launch is fresh under fetching blind at `budget` fetches per app
    /// per day with freshness window `tau`: min(1, τ·B / 1440 min).
    public static func coverage(budget: Double, tau: Microseconds) -> Double {
        guard budget > 0, tau > 0 else { return 0 }
        return min(1, tau.inMinutes * budget / 1_440)
    }

    /// The baseline's fresh rate at `budget`, from the share of scored launches that are fresh
    /// without any fetch (`never`'s fresh rate, free / scored).
    public static func fresh(never: Double, budget: Double, tau: Microseconds) -> Double {
        never + (1 - never) * coverage(budget: budget, tau: tau)
    }

    /// The budget at which the line reaches every launch: 1440/τ fetches per app per day.
    public static func saturation(tau: Microseconds) -> Double { tau > 0 ? 1_440 / tau.inMinutes : 0 }
}
