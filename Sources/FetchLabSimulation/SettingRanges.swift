import FetchLabCore

/// The range of each setting of a comparison that the command line accepts: its options check
/// them, and so does a partial read from a file (``ComparisonPartial/Configuration/check()``), so
/// a partial edited by hand cannot hold a setting no command could have given.
public enum SettingRanges {
    public static let warmUpDays = 0...3_660
    public static let minLaunches = 1...1_000_000
    public static let tau: ClosedRange<Microseconds> = .minutes(1) ... .hours(24)
    /// Fetches per app per day.
    public static let budget = 0.01...1_000.0
    /// Bootstrap resamples other than 0 (no intervals).
    public static let resamples = 10...100_000
    public static let fetchDuration: ClosedRange<Microseconds> = 100_000 ... .minutes(10)
    public static let fetchBytes: ClosedRange<Int64> = 0...10_000_000_000
    public static let watts = 0.0...100
    /// A radio state's length (promotion, tail).
    public static let radioState: ClosedRange<Microseconds> = 0 ... .minutes(10)
    public static let batteryWattHours = 0.1...1_000.0
    public static let percent = 0.0...100
    public static let fetchBudget: ClosedRange<Microseconds> = .seconds(1) ... .hours(1)
    public static let iosMinimumInterval: ClosedRange<Microseconds> = 0 ... .days(1)
    public static let pushRate = 0...3_600
    public static let dailyFetchBudget = 0...100_000
    public static let iosWakeBudgetPerLaunch = 0.0...1_000
    public static let iosWakeBudgetMax = 0...100_000
    public static let iosWakeBudgetWindow: ClosedRange<Microseconds> = .hours(1) ... .days(365)
    public static let iosSystemLead: ClosedRange<Microseconds> = 0 ... .hours(2)
    public static let androidMinimumPeriod: ClosedRange<Microseconds> = 0 ... .days(1)
    /// An App Standby bucket's deferral.
    public static let standbyDeferral: ClosedRange<Microseconds> = 0 ... .days(365)
    public static let contextHold: ClosedRange<Microseconds> = 0 ... .days(365)
}
