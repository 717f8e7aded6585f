import FetchLabCore

/// A recommendation carried to what an app developer can set, with the policy that models that
/// setting under the platform's rules (replayed with that platform so its cost and freshness are
/// the platform's, not FetchLab's own policy's).
public struct PlatformSetting: Sendable, Codable, Hashable {
    /// `ios` or `android`.
    public var platform: PlatformKind
    /// What is set, in a line.
    public var setting: String
    /// The policy that models it, replayed under `platform`.
    public var model: String
    /// A snippet to paste (Swift for iOS, Kotlin for Android).
    public var snippet: String
    /// What the model leaves out, when it is an approximation.
    public var note: String?
    /// How the platform replays the model when its own scheduler decides rather than the policy
    /// (iOS: a requested interval through the system's scheduler and wake budget); nil otherwise.
    public var replayedAs: String?
    /// The setting is silent push from the app's server, not a background fetch: declared by the
    /// translation that makes it (FetchLabSimulation's `PlatformTranslation`, from its model's
    /// type); not encoded, and read back from JSON from the model's name (``init(from:)``).
    public var isSilentPush: Bool

    public init(
        platform: PlatformKind, setting: String, model: String, snippet: String, note: String? = nil,
        replayedAs: String? = nil, isSilentPush: Bool = false
    ) {
        self.platform = platform
        self.setting = setting
        self.model = model
        self.snippet = snippet
        self.note = note
        self.replayedAs = replayedAs
        self.isSilentPush = isSilentPush
    }

    /// The canonical family name of silent push's model (`push(rate)`), by which a setting read
    /// back from JSON is known as silent push.
    public static let pushFamily = "push"

    enum CodingKeys: String, CodingKey { case platform, setting, model, snippet, note, replayedAs }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        platform = try c.decode(PlatformKind.self, forKey: .platform)
        setting = try c.decode(String.self, forKey: .setting)
        model = try c.decode(String.self, forKey: .model)
        snippet = try c.decode(String.self, forKey: .snippet)
        note = try c.decodeIfPresent(String.self, forKey: .note)
        replayedAs = try c.decodeIfPresent(String.self, forKey: .replayedAs)
        isSilentPush = model.prefix { $0 != "(" } == Self.pushFamily
    }
}

/// A platform setting with what it gave when replayed under its platform.
public struct PlatformOutcome: Sendable, Codable, Hashable {
    public var setting: PlatformSetting
    /// fresh@τ (the primary τ), fetches per app per day, battery energy per user per day, refusals.
    public var fresh: Double
    public var fetchesPerAppDay: Double
    public var joulesPerDay: Double
    public var skipped: Int
    /// The refusals by reason (``SkipReason`` raw values; nil in runs stored before they were kept).
    public var skips: [String: Int]?
    /// What the logs it was replayed on held for the platform's device rules (nil in runs stored
    /// before it was kept).
    public var inputs: PlatformInputs?
    /// What it was replayed on: the held-out part of the last fold and its users (nil in runs
    /// stored before this was recorded: the whole scored span).
    public var part: String?
    /// The users replayed (a sample of the held-out users on a large population).
    public var users: Int?

    public init(
        setting: PlatformSetting, fresh: Double, fetchesPerAppDay: Double, joulesPerDay: Double, skipped: Int,
        skips: [String: Int]? = nil, inputs: PlatformInputs? = nil, part: String? = nil, users: Int? = nil
    ) {
        self.skips = skips
        self.inputs = inputs
        self.part = part
        self.users = users
        self.setting = setting
        self.fresh = fresh
        self.fetchesPerAppDay = fetchesPerAppDay
        self.joulesPerDay = joulesPerDay
        self.skipped = skipped
    }
}
