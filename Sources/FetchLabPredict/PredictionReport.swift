import FetchLabCore
import FetchLabResults

extension PredictionRow {
    /// The row of `app`'s forecast `f`, with the fetches `planner` plans for it.
    public init(app: String, forecast f: Forecast, planner: FetchPlanner) {
        let at = { (minutes: Double) in f.origin + .minutes(fractional: minutes) }
        let fetches = planner.plan(f)
        let peakScore = planner.peakScore(f)
        self.init(
            app: app, probability: f.total, expectedNext: f.expectedNext.map(at),
            intervalLow: f.interval.map { at($0.low) }, intervalHigh: f.interval.map { at($0.high) },
            fetches: fetches, peakScore: peakScore,
            noFetchReason: fetches.isEmpty ? Self.reason(probability: f.total, peak: peakScore, planner: planner) : nil)
    }

    /// Why a forecast with this probability and peak score gets no fetch from `planner`.
    static func reason(probability: Double, peak: Double, planner: FetchPlanner) -> String {
        let window = "\(Int(planner.freshness.inMinutes))-min window"
        let peakText =
            "the busiest \(window) holds \(fixed(peak)) expected uses, below the \(fixed(planner.threshold)) a fetch needs"
        if probability <= 0 || peak <= 0 { return "no use expected within the horizon" }
        if probability >= planner.threshold {
            return "uses spread out: \(peakText)"
        }
        return "unlikely to be used: \(peakText)"
    }

    static func fixed(_ x: Double) -> String {
        let r = (x * 100).rounded() / 100
        var s = "\(r)"
        if s.hasSuffix(".0") { s += "0" } else if s.split(separator: ".").last?.count == 1 { s += "0" }
        return s
    }
}

/// Why a user's prediction cannot be made.
public enum PredictionError: FetchLabError, Equatable {
    /// No launches for this user; `suggestions` are existing users (all of them when `everyone`).
    case unknownUser(String, suggestions: [String], everyone: Bool)
    case noLaunchesBeforeOrigin(user: String)
    case unknownApp(user: String, app: String)

    public enum Code: String, Sendable, Hashable {
        case unknownUser, noLaunchesBeforeOrigin, unknownApp
    }

    public var code: Code {
        switch self {
        case .unknownUser: .unknownUser
        case .noLaunchesBeforeOrigin: .noLaunchesBeforeOrigin
        case .unknownApp: .unknownApp
        }
    }

    public var message: String { description }

    public var description: String {
        switch self {
        case .unknownUser(let user, let suggestions, let everyone):
            let base = "no launches for user \"\(user)\""
            if suggestions.isEmpty { return base }
            return base + (everyone ? "; users with launches: " : "; closest users: ")
                + suggestions.joined(separator: ", ")
        case .noLaunchesBeforeOrigin(let user):
            return "user \"\(user)\" has no launches before the origin"
        case .unknownApp(let user, let app):
            return "user \"\(user)\" has no launches of \(app) before the origin"
        }
    }

    /// The error for `user`, who has no launches, naming the closest of `known` users.
    public static func unknown(_ user: String, among known: [String], limit: Int = 5) -> PredictionError {
        let closest = NameSuggestions.closest(to: user, among: known, limit: limit)
        return .unknownUser(user, suggestions: closest, everyone: closest.count == known.count)
    }
}

/// What a prediction is asked for, besides the user and the origin.
public struct PredictionRequest: Sendable {
    /// How far ahead.
    public var horizon: Microseconds
    public var planner: FetchPlanner
    /// Only this app (nil: every app the user launched before the origin).
    public var app: String?

    public init(horizon: Microseconds = .minutes(1440), planner: FetchPlanner = FetchPlanner(), app: String? = nil) {
        self.horizon = horizon
        self.planner = planner
        self.app = app
    }
}

extension PredictionRequest {
    /// The blend with weights fitted on `histories`, and this request with its planner calibrated
    /// on the plans that blend makes for them (``Evaluator/calibrated(_:for:on:)``). Causal when
    /// `histories` hold only what happened before the origin: the stated probabilities of the
    /// fetches then come from how earlier plans of the same kind turned out.
    public func fitted(on histories: [UserHistory]) -> (blend: BlendPredictor, request: PredictionRequest) {
        let evaluator = Evaluator()
        let blend = evaluator.fittedBlend(histories)
        var request = self
        request.planner = evaluator.calibrated(planner, for: blend, on: histories)
        return (blend, request)
    }
}

extension PredictionReport {
    /// The prediction for one user from `origin`: `blend` (fitted, untrained) learns the user's
    /// launches before the origin (`history` may hold later ones; they are not seen), then
    /// forecasts each app and plans its fetches.
    public init(
        history all: UserHistory, origin: Instant, blend template: BlendPredictor, request: PredictionRequest
    ) throws(PredictionError) {
        let history = all.before(origin)
        guard let last = history.launches.last else { throw .noLaunchesBeforeOrigin(user: all.user.name) }
        if let app = request.app, !history.apps.contains(AppID(app)) {
            throw .unknownApp(user: all.user.name, app: app)
        }
        var blend = template
        for l in history.launches { blend.observe(l) }
        var rows: [PredictionRow] = []
        for (i, name) in history.apps.enumerated() where request.app == nil || name.name == request.app {
            let f = blend.forecast(
                app: Int32(i), origin: origin, offset: last.offset, minutes: Int(request.horizon / .perMinute))
            rows.append(PredictionRow(app: name.name, forecast: f, planner: request.planner))
        }
        rows.sort {
            ($0.fetches.first?.fetchAt ?? .distantFuture, -$0.probability)
                < ($1.fetches.first?.fetchAt ?? .distantFuture, -$1.probability)
        }
        self.init(
            user: all.user.name, origin: origin, utcOffset: Int(last.offset), horizon: request.horizon,
            lead: request.planner.lead, threshold: request.planner.threshold,
            blendWeights: Dictionary(
                zip(template.parts.map(\.name), template.weights), uniquingKeysWith: { a, b in a + b }),
            apps: rows, freshness: request.planner.freshness)
    }
}
