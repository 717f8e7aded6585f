import FetchLabCore
import FetchLabResults
import Foundation

/// A measure of a replay a tuner optimises or constrains: `fresh@15m`, or a tunable entry of
/// `Metric.table` (`energy`, `battery`, `cellular`, `fetches`).
public enum TuningMetric: Sendable, Hashable, CustomStringConvertible {
    /// fresh@τ (share of scored launches), higher is better.
    case fresh(Microseconds)
    /// A tunable metric of the table.
    case metric(Metric)

    /// Joules from the battery per user per day.
    public static var energy: TuningMetric { .metric(Metric.ID.energy.metric) }
    /// Battery percent per user per day.
    public static var battery: TuningMetric { .metric(Metric.ID.battery.metric) }
    /// Cellular MB per user per day.
    public static var cellular: TuningMetric { .metric(Metric.ID.cellular.metric) }
    /// Fetches per app per day.
    public static var fetches: TuningMetric { .metric(Metric.ID.fetchesPerAppDay.metric) }

    /// What `gap` (gap closed) now answers: it was removed because it rewarded spending nothing.
    public static let gapRemoved =
        "gap closed was removed: it rewarded spending nothing (a policy that fetches almost never closes a large share "
        + "of a tiny gap); use --maximize fresh@15m --subject-to \"fetches<=2\" instead"

    /// Parses `fresh@15m` or a tunable metric's name (`energy`, `battery`, `cellular`, `fetches`;
    /// `gap` is refused with ``gapRemoved``).
    public static func parse(_ raw: String) throws(TuningError) -> TuningMetric {
        let text = raw.lowercased().trimmingCharacters(in: .whitespaces)
        if let metric = Metric.tunable.first(where: { $0.tuning?.name == text }) { return .metric(metric) }
        switch text {
        case "gap", "gap-closed", "gap_closed", "gapclosed": throw TuningError(gapRemoved, code: .invalid)
        default:
            if text.hasPrefix("fresh@"), Quantity.isUnitless(String(text.dropFirst(6))) {
                throw TuningError(
                    "metric '\(raw)': τ \(Quantity.unitQuestion(String(text.dropFirst(6))))", code: .invalid)
            }
            if text.hasPrefix("fresh@"), let tau = Quantity.duration(String(text.dropFirst(6))),
                tau >= .minutes(1), tau <= .hours(24)
            {
                return .fresh(tau)
            }
            if text == "fresh" { return .fresh(.minutes(15)) }
            let names = Metric.tunable.compactMap(\.tuning?.name)
            throw TuningError(
                "metric '\(raw)' is not fresh@τ (e.g. fresh@15m, τ from 1m to 24h), "
                    + names.dropLast().joined(separator: ", ") + " or " + (names.last ?? ""), code: .invalid)
        }
    }

    public var description: String {
        switch self {
        case .fresh(let tau): "fresh@\(FixedIntervalPolicy.durationName(tau))"
        case .metric(let m): m.tuning?.name ?? m.key
        }
    }

    /// The unit a constraint's bound is written in, for messages and tables.
    public var unit: String {
        switch self {
        case .fresh: ""
        case .metric(let m): m.tuning?.unit ?? m.unit
        }
    }

    /// Higher is better for fresh, lower for the costs.
    public var higherIsBetter: Bool {
        switch self {
        case .fresh: true
        case .metric(let m): m.direction == .higherIsBetter
        }
    }

    /// A value as messages write it: `2.6 fetches/app/day`, `31.0 J/day`, `38.2 %`.
    public func text(_ value: Double) -> String {
        switch self {
        case .fresh: String(format: "%.1f", value * 100) + " %"
        case .metric(let m): m.tuning?.text(value) ?? m.formatted(value)
        }
    }

    /// The metric's value in a tuning summary (nil: fresh at a τ other than 15 min).
    public func value(in s: ScoreSummary) -> Double? {
        switch self {
        case .fresh(let tau): tau == .minutes(15) ? s.fresh15 : nil
        case .metric(let m): s[m]
        }
    }

    /// The metric's value in a policy's metrics (nil: a fresh@τ the replay did not report).
    public func value(in m: PolicyMetrics) -> Double? {
        switch self {
        case .fresh(let tau): m.fresh(tau: tau)
        case .metric(let metric): m[metric]
        }
    }

    /// The τ a fresh metric needs the replay to report.
    public var tau: Microseconds? {
        if case .fresh(let tau) = self { return tau }
        return nil
    }
}

/// What a tuner optimises: `--maximize fresh@15m` or `--minimize energy`.
public struct Objective: Sendable, Hashable, CustomStringConvertible {
    public var metric: TuningMetric
    public var maximize: Bool

    public init(metric: TuningMetric, maximize: Bool) {
        self.metric = metric
        self.maximize = maximize
    }

    /// `maximize fresh@15m`.
    public var description: String { "\(maximize ? "maximize" : "minimize") \(metric)" }

    /// The score to sort by, higher is better (the value, negated when minimising).
    public func score(_ value: Double) -> Double { maximize ? value : -value }
}

/// One bound on a metric: `battery<=1%/day`, `fresh@15m>=0.6`.
public struct TuningConstraint: Sendable, Hashable, CustomStringConvertible {
    public var metric: TuningMetric
    /// true: value ≤ bound; false: value ≥ bound.
    public var atMost: Bool
    public var bound: Double

    public init(metric: TuningMetric, atMost: Bool, bound: Double) {
        self.metric = metric
        self.atMost = atMost
        self.bound = bound
    }

    public var description: String {
        "\(metric)\(atMost ? "<=" : ">=")\(PolicyRegistry.Arguments.numberName(bound))\(metric.unit)"
    }

    /// Whether a value satisfies the bound (a missing value does not).
    public func holds(_ value: Double?) -> Bool {
        guard let value else { return false }
        return atMost ? value <= bound + 1e-12 : value >= bound - 1e-12
    }

    /// How far a value misses the bound, relative to the bound (0 when it holds; 1 when missing).
    public func violation(_ value: Double?) -> Double {
        guard let value else { return 1 }
        guard !holds(value) else { return 0 }
        return abs(value - bound) / max(abs(bound), 1e-9)
    }

    /// Parses a comma-separated list such as `battery<=1%/day,cellular<=5MB/day,fresh@15m>=0.6,fetches<=5`;
    /// the error names the part at fault.
    public static func parseList(_ text: String) throws(TuningError) -> [TuningConstraint] {
        let parts = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !parts.isEmpty else { throw TuningError("no constraint given; expected e.g. battery<=1%/day,fetches<=5", code: .invalid) }
        var out: [TuningConstraint] = []
        for part in parts { out.append(try parse(part)) }
        return out
    }

    /// Parses one constraint: `metric<=bound` or `metric>=bound`, the bound optionally with the
    /// metric's unit (`1%/day`, `5MB/day`, `300J/day`, `5/app/day`, `/day`).
    public static func parse(_ raw: String) throws(TuningError) -> TuningConstraint {
        let text = raw.filter { !$0.isWhitespace }
        let atMost: Bool
        let pieces: [Substring]
        if text.contains("<=") {
            atMost = true
            pieces = text.split(separator: "<=", omittingEmptySubsequences: false)
        } else if text.contains(">=") {
            atMost = false
            pieces = text.split(separator: ">=", omittingEmptySubsequences: false)
        } else {
            throw TuningError("constraint '\(raw)' needs <= or >=, e.g. fetches<=5", code: .invalid)
        }
        guard pieces.count == 2 else {
            throw TuningError("constraint '\(raw)' must be one metric, <= or >=, one bound", code: .invalid)
        }
        let metric: TuningMetric
        do { metric = try TuningMetric.parse(String(pieces[0])) } catch {
            throw TuningError("constraint '\(raw)': \(error.message)", code: .invalid)
        }
        var number = pieces[1].lowercased()
        for suffix in ["/app/day", "/day", "%", "mb", "j"] where number.hasSuffix(suffix) {
            number.removeLast(suffix.count)
        }
        guard let bound = Double(number), bound.isFinite, bound >= 0 else {
            throw TuningError("constraint '\(raw)': bound '\(pieces[1])' is not a non-negative number", code: .invalid)
        }
        return TuningConstraint(metric: metric, atMost: atMost, bound: bound)
    }
}

/// A tuning mistake or failure, one printable line.
public struct TuningError: FetchLabError, Equatable {
    public enum Code: String, Sendable, Hashable {
        /// The search as given cannot be read: its grid, objective or constraints (a usage error).
        case invalid
        /// The search could not be done on this data (nothing scored, nothing feasible).
        case failed
    }

    public var code: Code
    public var message: String
    public var description: String { message }
    public var isUsageError: Bool { code == .invalid }

    public init(_ message: String, code: Code = .failed) {
        self.code = code
        self.message = message
    }
}
