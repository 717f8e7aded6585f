/// The log formats FetchLab reads. See Docs/formats.md.
///
/// A format's name lives here, in the report model, so that an import's summary names it; how it
/// is read lives in FetchLabIngest. Adding a format: one file under `Sources/FetchLabIngest/Formats/`
/// with a type conforming to `DelimitedFormat` (rows under a header) or `LineFormat` (lines with
/// state across them), one case here, and its arm in `delimited`, `lineFormat` and
/// `decode(_:into:)` of FetchLabIngest's `LogFormat.swift` (the compiler asks for each).
public enum LogFormat: String, Sendable, Hashable, CaseIterable, Codable {
    /// FetchLab usage events: `timestamp,user,app[,event]` (CSV, TSV or JSON Lines).
    case usage
    /// FetchLab device context: `timestamp,user[,battery,charging,network,low_power,screen_on]`.
    case context
    /// FetchLab content updates: `timestamp,app`.
    case content
    /// Android foreground-app polling logs without a header: `YYYY-MM-DD HH:MM:SS[.ffffff],package`.
    case foreground
    /// Android battery-sampler logs (`ID,level,status,WiFi,Cellular,isInteractive,Timestamp`, …).
    case battery
    /// The LSApp dataset: `user_id, session_id, timestamp, app_name, event_type` (TSV).
    case lsapp
    /// The text of Android's `adb shell dumpsys usagestats` (`UsageStatsFormat`).
    case usagestats
    /// The iOS/macOS Knowledge store (`knowledgeC.db`, SQLite): read by FetchLabIngest's
    /// `KnowledgeStoreReader`,
    /// not line by line.
    case knowledgeC = "knowledgec"
}
