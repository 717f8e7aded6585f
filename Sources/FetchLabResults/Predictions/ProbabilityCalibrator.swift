/// A stated probability and what happened: one case to calibrate on or to judge calibration by.
public struct CalibrationSample: Sendable, Hashable, Codable {
    /// The probability stated beforehand (0…1).
    public var stated: Double
    /// Whether the event happened.
    public var outcome: Bool

    public init(stated: Double, outcome: Bool) {
        self.stated = stated
        self.outcome = outcome
    }
}

/// A monotone map from a raw probability to a calibrated one, fitted by isotonic regression
/// (pool-adjacent-violators) on (raw p, outcome) pairs of a training period.
///
/// The map is piecewise linear through knots: flat over each pooled block of raw values (the
/// block's observed frequency), linear between neighbouring blocks, flat beyond the ends. It is
/// non-decreasing, deterministic (the same samples in any order give the same map) and pure.
/// With no samples it is the identity; with fewer than `minimumSamples` it states the base rate.
/// FetchLabPredict fits it (`init(fitting:)`); this module holds and applies it.
public struct ProbabilityCalibrator: Sendable, Hashable, Codable {
    /// Raw probabilities at the knots, increasing.
    public private(set) var raw: [Double]
    /// Calibrated probabilities at the knots, non-decreasing.
    public private(set) var calibrated: [Double]
    /// How many samples it was fitted on.
    public private(set) var samples: Int

    enum CodingKeys: String, CodingKey {
        case raw = "raw_knots"
        case calibrated = "calibrated_knots"
        case samples
    }

    /// The identity: stated probabilities are taken as they are.
    public static let identity = ProbabilityCalibrator(raw: [0, 1], calibrated: [0, 1], samples: 0)

    /// The map through the knots `raw` → `calibrated`, fitted on `samples` samples (the fitting
    /// lives with the predictors, in FetchLabPredict).
    package init(raw: [Double], calibrated: [Double], samples: Int) {
        self.raw = raw
        self.calibrated = calibrated
        self.samples = samples
    }

    /// The calibrated probability of a raw one.
    public func callAsFunction(_ p: Double) -> Double {
        guard let first = raw.first, let last = raw.last else { return p }
        if p <= first { return calibrated[0] }
        if p >= last { return calibrated[calibrated.count - 1] }
        // The first knot above p (binary search); p lies between knots i-1 and i.
        var lo = 1
        var hi = raw.count - 1
        while lo < hi {
            let mid = (lo + hi) / 2
            if raw[mid] < p { lo = mid + 1 } else { hi = mid }
        }
        let (x0, x1, y0, y1) = (raw[lo - 1], raw[lo], calibrated[lo - 1], calibrated[lo])
        return x1 > x0 ? y0 + (y1 - y0) * (p - x0) / (x1 - x0) : y1
    }
}
