import FetchLabCore
import Foundation

/// One figure of a policy's replay, listed once in ``Metric/table``: its JSON and CSV key, unit,
/// direction, how it is written for people, its SQL column and how it sums over a group.
/// ``PolicyMetrics`` holds one value per entry; the JSON, CSV and SQL writers, the tuner's
/// objective, constraints and Pareto front, and the reports iterate the table instead of naming
/// each metric. The fresh rates (one per τ) and the structured figures (the staleness CDF, skips,
/// reliability, intervals) are not entries: they are not one number.
///
/// Adding a metric is one case of ``Metric/ID``, one entry of the table and its computation in
/// the replay.
public struct Metric: Sendable, Hashable, CustomStringConvertible {
    /// The metrics, in the order of the table (and of the JSON metrics object).
    public enum ID: Int, Sendable, Hashable, CaseIterable, Comparable {
        case scoredLaunches, contentFresh, stalenessMedian, stalenessP90, leadMedian, fetches, fetchesPerAppDay
        case wastedFetches, wastedShare, energy, battery, cellular, lowBatteryFetches, gainVsFixed, shareOfPossible
        case cellularFetches

        public static func < (a: ID, b: ID) -> Bool { a.rawValue < b.rawValue }

        /// Its entry of the table.
        public var metric: Metric { Metric.table[rawValue] }
    }

    /// What a value is: a count, a number, or a number that may be unknown (encoded as null).
    public enum Kind: Sendable, Hashable {
        /// A whole number, never null.
        case count
        /// A number, never null.
        case real
        /// A number, null when it cannot be measured (no content data, never refreshed).
        case optional
    }

    /// Which way is better.
    public enum Direction: Sendable, Hashable {
        case higherIsBetter, lowerIsBetter
        /// Neither: a count of what was measured, or a description.
        case neither
    }

    /// How the metric of a group follows from its parts, and so how partial results merge.
    public enum Aggregation: Sendable, Hashable {
        /// Summed (counts).
        case sum
        /// A ratio of two sums (a share of launches, of fetches).
        case ratio
        /// Averaged over pairs (fetches per app per day).
        case meanOverPairs
        /// Per user per day: summed over pairs, divided by the cost units (users overall and per
        /// user, pairs per app).
        case perUserDay
        /// A quantile of a merged histogram.
        case quantile
        /// Measured over all users against the baseline and bound (null per app or user).
        case overall
    }

    /// A figure summed per user per day (energy, cellular data): the replay's total of a pair over
    /// the scored span, divided by its days, summed exactly over pairs (and shards), then divided
    /// by the cost units (users; pairs per app) and by ``divisor``.
    public struct DailySum: Sendable, Hashable {
        /// Its key among a partial's sums (`joulesPerDaySum`).
        public var partialKey: String
        /// The unit conversion at the end (bytes → MB: 1,000,000; nil: none).
        public var divisor: Double?
        /// The most one pair can add in a day, for refusing impossible partials.
        public var limit: Limit

        /// What bounds a pair's total per day.
        public enum Limit: Sendable, Hashable {
            /// The highest power the options accept, all day (joules).
            case energy
            /// As many fetches as a day can hold, each of the largest fetch's bytes.
            case fetchBytes
            /// As many fetches as a day can hold.
            case fetches
        }
    }

    /// A column of the run tables (`run_policy`, `run_policy_app`, `run_policy_user`).
    public struct Column: Sendable, Hashable {
        public var name: String
        /// Its SQL type, e.g. `REAL NOT NULL`.
        public var type: String
        /// The schema migration that created it (4 or 6): the column order follows it.
        public var migration: Int
    }

    /// The metric as a tuning objective or constraint (`--minimize energy`, `cellular<=5MB/day`).
    public struct Tuning: Sendable, Hashable {
        /// Its name on the command line: `energy`.
        public var name: String
        /// The unit a bound is written in: `J/day`.
        public var unit: String
        /// Its key in a tuning summary's JSON (`energyJoulesPerDay`).
        public var summaryKey: String
        /// On the Pareto front marked among the settings tried (with fresh@15m).
        public var pareto: Bool
        /// Its place among the tunable metrics in tuning summaries, tables and CSV (fixed by
        /// schema v5: energy, battery, cellular, fetches).
        public var order: Int
        /// A value in messages: digits after the point and the words after it (`31.0 J/day`).
        public var digits: Int
        public var words: String

        /// `31.0 J/day`.
        public func text(_ value: Double) -> String { String(format: "%.\(digits)f", value) + words }
    }

    public let id: ID
    /// The JSON and CSV key: `energy_j_per_day`.
    public let key: String
    /// The unit for people: `J/day`, `MB/day`, `min`, `share`.
    public let unit: String
    public let direction: Direction
    public let kind: Kind
    /// Digits after the decimal point when written for people (`%.1f`).
    public let digits: Int
    public let aggregation: Aggregation
    /// Its SQL column (nil: only in the stored `metrics_json`).
    public let column: Column?
    /// As a tuning objective or constraint (nil: not tunable).
    public let tuning: Tuning?
    /// How the replay sums it per user per day (nil: it is not such a sum).
    public let dailySum: DailySum?
    /// Whether decoding a report without it fails (the metrics every report had).
    public let required: Bool

    init(
        _ id: ID, _ key: String, unit: String, _ direction: Direction, _ kind: Kind, digits: Int,
        _ aggregation: Aggregation, column: String?, migration: Int = 4, tuning: Tuning? = nil,
        dailySum: DailySum? = nil, required: Bool = false
    ) {
        self.id = id
        self.key = key
        self.unit = unit
        self.direction = direction
        self.kind = kind
        self.digits = digits
        self.aggregation = aggregation
        let type =
            switch kind {
            case .count: "INTEGER NOT NULL"
            case .real: "REAL NOT NULL"
            case .optional: "REAL"
            }
        self.column = column.map { Column(name: $0, type: type, migration: migration) }
        self.tuning = tuning
        self.dailySum = dailySum
        self.required = required
    }

    /// Every metric, once, in ``ID`` order.
    public static let table: [Metric] = [
        Metric(
            .scoredLaunches, "scored_launches", unit: "launches", .neither, .count, digits: 0, .sum,
            column: "scored_launches", required: true),
        Metric(
            .contentFresh, "content_fresh", unit: "share", .higherIsBetter, .optional, digits: 3, .ratio,
            column: "content_fresh"),
        Metric(
            .stalenessMedian, "staleness_median_min", unit: "min", .lowerIsBetter, .optional, digits: 1, .quantile,
            column: "staleness_median_min"),
        Metric(
            .stalenessP90, "staleness_p90_min", unit: "min", .lowerIsBetter, .optional, digits: 1, .quantile,
            column: "staleness_p90_min"),
        Metric(
            .leadMedian, "lead_median_min", unit: "min", .neither, .optional, digits: 1, .quantile,
            column: "lead_median_min"),
        Metric(.fetches, "fetches", unit: "fetches", .neither, .count, digits: 0, .sum, column: "fetches"),
        Metric(
            .fetchesPerAppDay, "fetches_per_app_day", unit: "/app/day", .lowerIsBetter, .real, digits: 2,
            .meanOverPairs, column: "fetches_per_app_day",
            tuning: Tuning(
                name: "fetches", unit: "/app/day", summaryKey: "fetchesPerAppDay", pareto: false, order: 3, digits: 1,
                words: " fetches/app/day"),
            required: true),
        Metric(
            .wastedFetches, "wasted_fetches", unit: "fetches", .lowerIsBetter, .count, digits: 0, .sum,
            column: "wasted_fetches"),
        Metric(
            .wastedShare, "wasted_share", unit: "share", .lowerIsBetter, .real, digits: 2, .ratio,
            column: "wasted_share"),
        Metric(
            .energy, "energy_j_per_day", unit: "J/day", .lowerIsBetter, .real, digits: 1, .perUserDay,
            column: "energy_j_per_day",
            tuning: Tuning(
                name: "energy", unit: "J/day", summaryKey: "energyJoulesPerDay", pareto: true, order: 0, digits: 1,
                words: " J/day"),
            dailySum: DailySum(partialKey: "joulesPerDaySum", divisor: nil, limit: .energy)),
        Metric(
            .battery, "battery_pct_per_day", unit: "%/day", .lowerIsBetter, .real, digits: 2, .perUserDay,
            column: "battery_pct_per_day",
            tuning: Tuning(
                name: "battery", unit: "%/day", summaryKey: "batteryPercentPerDay", pareto: false, order: 1, digits: 2,
                words: " %/day")),
        Metric(
            .cellular, "cellular_mb_per_day", unit: "MB/day", .lowerIsBetter, .real, digits: 2, .perUserDay,
            column: "cellular_mb_per_day",
            tuning: Tuning(
                name: "cellular", unit: "MB/day", summaryKey: "cellularMBPerDay", pareto: true, order: 2, digits: 2,
                words: " MB/day"),
            dailySum: DailySum(partialKey: "cellularBytesPerDaySum", divisor: 1_000_000, limit: .fetchBytes)),
        Metric(
            .lowBatteryFetches, "fetches_low_battery", unit: "fetches", .lowerIsBetter, .count, digits: 0, .sum,
            column: "fetches_low_battery"),
        Metric(
            .gainVsFixed, "gain_vs_fixed", unit: "share", .higherIsBetter, .optional, digits: 3, .overall,
            column: "gain_vs_fixed", migration: 6),
        Metric(
            .shareOfPossible, "share_of_possible", unit: "share", .higherIsBetter, .optional, digits: 2, .overall,
            column: "share_of_possible", migration: 6),
        // Fetches that ran on cellular, per user per day (in the stored metrics_json, no column).
        Metric(
            .cellularFetches, "cellular_fetches_per_day", unit: "fetches/day", .lowerIsBetter, .real, digits: 2,
            .perUserDay, column: nil,
            dailySum: DailySum(partialKey: "cellularFetchesPerDaySum", divisor: nil, limit: .fetches)),
    ]

    /// The metrics that are tuning objectives and constraints, in their ``Tuning/order``.
    public static let tunable: [Metric] =
        table.filter { $0.tuning != nil }.sorted { ($0.tuning?.order ?? 0) < ($1.tuning?.order ?? 0) }

    /// The metrics summed per user per day (``dailySum``), in table order: the replay's sums and a
    /// partial's hold one figure for each.
    public static let daily: [Metric] = table.filter { $0.dailySum != nil }

    /// The metric with JSON key `key`.
    public static func named(_ key: String) -> Metric? { table.first { $0.key == key } }

    public var description: String { key }

    /// `value` for people, with the entry's digits (`12.3`); `–` for nil.
    public func formatted(_ value: Double?) -> String {
        guard let value else { return "–" }
        return kind == .count ? "\(Int(value))" : String(format: "%.\(digits)f", value)
    }

    public static func == (a: Metric, b: Metric) -> Bool { a.id == b.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// The τ of a fresh rate: a span, written `fresh_15m` in JSON and CSV (fractional minutes keep
/// their decimals, `fresh_2.5m`).
public enum FreshKey {
    /// `fresh_15m` for 15 minutes.
    public static func key(_ tau: Microseconds) -> String { key(minutes: tau.inMinutes) }

    public static func key(minutes: Double) -> String {
        minutes == minutes.rounded() ? "fresh_\(Int(minutes))m" : "fresh_\(minutes)m"
    }

    /// The τ of `fresh_<minutes>m` (nil: another key, or minutes no span holds).
    public static func tau(_ key: String) -> Microseconds? {
        guard key.hasPrefix("fresh_"), key.hasSuffix("m"), let minutes = Double(key.dropFirst(6).dropLast()) else {
            return nil
        }
        return .minutes(checked: minutes)
    }
}
