import FetchLabCore

/// The recommendation for one app (all its users) or one group of users, chosen on that part of
/// the training data and measured on that part of the held-out data against the overall choice.
public struct GroupRecommendation: Sendable, Codable, Hashable {
    public enum Kind: String, Sendable, Codable, Hashable {
        /// One app, over every user who has it evaluated.
        case app
        /// A group of users by launches per day (light, moderate, heavy).
        case users
    }

    public var kind: Kind
    /// The app's name, or the group in words (`light users (< 12.5 launches/day)`).
    public var group: String
    /// The best setting tried on this part of the training data (constraints checked on the
    /// part's own figures).
    public var chosen: String
    public var chosenTrain: ScoreSummary
    /// The part's own choice on its held-out launches.
    public var chosenTest: ScoreSummary
    /// The overall choice on the same held-out launches.
    public var globalTest: ScoreSummary
    /// The best fixed interval (chosen overall) on the same held-out launches.
    public var bestFixedTest: ScoreSummary?
    /// How much the part's own choice improves the objective over the overall choice on held-out
    /// data (in the objective's better direction: positive is better; 0 when they agree).
    public var gain: Double

    public init(
        kind: Kind, group: String, chosen: String, chosenTrain: ScoreSummary, chosenTest: ScoreSummary,
        globalTest: ScoreSummary, bestFixedTest: ScoreSummary?, gain: Double
    ) {
        self.kind = kind
        self.group = group
        self.chosen = chosen
        self.chosenTrain = chosenTrain
        self.chosenTest = chosenTest
        self.globalTest = globalTest
        self.bestFixedTest = bestFixedTest
        self.gain = gain
    }
}

/// The tuner's per-app recommendation: a setting for each app, chosen together so that the
/// user-level constraints hold for the whole (see `Tuner.allocate(_:names:global:constraints:)`), replayed
/// as one `PerAppPolicy` on the held-out data.
public struct PerAppRecommendation: Sendable, Codable, Hashable {
    public struct Assignment: Sendable, Codable, Hashable {
        public var app: String
        public var setting: String
        public init(app: String, setting: String) {
            self.app = app
            self.setting = setting
        }
    }
    /// Every evaluated app's setting (apps with fewer than the tuner's `minGroupLaunches` scored
    /// training launches keep the overall choice).
    public var assignments: [Assignment]
    /// The `PerAppPolicy` name.
    public var policy: String
    /// The training figures of the combination, summed from each app's own figures (an estimate:
    /// fetches of different apps share radio wake-ups differently once combined).
    public var trainEstimate: ScoreSummary
    /// The combination replayed on the training data (fetches of different apps share radio
    /// wake-ups differently once combined, so the sum is an estimate).
    public var train: ScoreSummary
    /// Whether the replayed training figures meet every constraint.
    public var feasibleOnTrain: Bool
    /// The combination replayed on the held-out data.
    public var test: ScoreSummary

    public init(
        assignments: [Assignment], policy: String, trainEstimate: ScoreSummary, train: ScoreSummary,
        feasibleOnTrain: Bool, test: ScoreSummary
    ) {
        self.assignments = assignments
        self.policy = policy
        self.trainEstimate = trainEstimate
        self.train = train
        self.feasibleOnTrain = feasibleOnTrain
        self.test = test
    }
}
