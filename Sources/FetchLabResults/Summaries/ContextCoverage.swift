import FetchLabCore

/// How well one user's device context is covered, for `fetchlab inspect`.
///
/// Shares are of the samples that recorded the field (a log may leave any field out); nil when
/// none did.
public struct ContextCoverage: Sendable, Codable, Hashable {
    public var user: String
    public var samples: Int
    /// First and last sample (written as UTC microseconds) and the same as `YYYY-MM-DDTHH:MM:SSZ`.
    public var firstSample: Instant
    public var lastSample: Instant
    public var first: String
    public var last: String
    /// UTC calendar days from the first to the last sample, both included.
    public var daysCovered: Int
    /// Samples that said whether the device was charging, and the share that said it was.
    public var chargingKnown: Int
    public var chargingShare: Double?
    /// Samples that named the network, and the shares on wifi, cellular and none.
    public var networkKnown: Int
    public var wifiShare: Double?
    public var cellularShare: Double?
    public var noNetworkShare: Double?
    /// Samples that said whether low-power mode was on, and the share with it on.
    public var lowPowerKnown: Int
    public var lowPowerShare: Double?

    public init(
        user: String, samples: Int, firstSample: Instant, lastSample: Instant, first: String, last: String,
        daysCovered: Int, chargingKnown: Int, chargingShare: Double?, networkKnown: Int, wifiShare: Double?,
        cellularShare: Double?, noNetworkShare: Double?, lowPowerKnown: Int, lowPowerShare: Double?
    ) {
        self.user = user
        self.samples = samples
        self.firstSample = firstSample
        self.lastSample = lastSample
        self.first = first
        self.last = last
        self.daysCovered = daysCovered
        self.chargingKnown = chargingKnown
        self.chargingShare = chargingShare
        self.networkKnown = networkKnown
        self.wifiShare = wifiShare
        self.cellularShare = cellularShare
        self.noNetworkShare = noNetworkShare
        self.lowPowerKnown = lowPowerKnown
        self.lowPowerShare = lowPowerShare
    }
}

/// When one user's context samples of one import were taken, beside when that user's launches
/// are (in the whole database): samples that do not overlap the launches in time are read by no
/// replay, even with the user named right.
public struct ContextOverlap: Sendable, Hashable {
    public var user: String
    /// First and last sample of the import.
    public var firstSample: Instant
    public var lastSample: Instant
    /// The user's first and last launch; nil when the user has none.
    public var launches: ClosedRange<Instant>?

    public init(user: String, firstSample: Instant, lastSample: Instant, launches: ClosedRange<Instant>?) {
        self.user = user
        self.firstSample = firstSample
        self.lastSample = lastSample
        self.launches = launches
    }

    /// The samples' span.
    public var samples: ClosedRange<Instant> { firstSample...lastSample }

    /// Whether the samples' span meets the user's launches' (false when the user has none).
    public var overlapsLaunches: Bool { launches.map { $0.overlaps(samples) } ?? false }
}
