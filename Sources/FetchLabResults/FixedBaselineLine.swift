/// The fixed-interval baseline in closed form (DOMAIN.md, "Evaluation protocol"): what a fixed
/// interval gives in expectation over its phase. A fixed interval T fetches 1440/T times a day
/// whatever its phase, and a target launch (one only a background fetch can make fresh) is fresh
/// when a fetch falls in the τ before it, which for a phase uniform at random happens with
/// probability min(1, τ/T). At B fetches per app per day the baseline is therefore
/// (launches fresh without fetches + targets · min(1, τ·B / 1440 min)) / scored launches: a straight
/// line in B up to 1440/τ, then every launch.
public enum FixedBaselineLine {
    /// The chance that a target launch is fresh under fetching blind at `budget` fetches per app
    /// per day with freshness window `tauMinutes`: min(1, τ·B / 1440).
    public static func coverage(budget: Double, tauMinutes: Double) -> Double {
        guard budget > 0, tauMinutes > 0 else { return 0 }
        return min(1, tauMinutes * budget / 1_440)
    }

    /// The baseline's fresh rate at `budget`, from the share of scored launches that are fresh
    /// without any fetch (`never`'s fresh rate, free / scored).
    public static func fresh(never: Double, budget: Double, tauMinutes: Double) -> Double {
        never + (1 - never) * coverage(budget: budget, tauMinutes: tauMinutes)
    }

    /// The budget at which the line reaches every launch: 1440/τ fetches per app per day.
    public static func saturation(tauMinutes: Double) -> Double { tauMinutes > 0 ? 1_440 / tauMinutes : 0 }
}
