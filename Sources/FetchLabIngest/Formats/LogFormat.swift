/// The log formats FetchLab reads. See README "Input formats".
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
}

/// How the rows of a FetchLab-format file are written.
public enum RowSyntax: String, Sendable, Hashable, Codable {
    case csv, tsv, jsonLines = "jsonl"
}

/// The canonical fields of FetchLab's own formats, and the header names read as each.
enum Field: String, CaseIterable {
    case timestamp, user, app, event, battery, charging, network, lowPower = "low_power", screenOn = "screen_on"

    /// Position in `allCases`, for array-indexed lookups.
    var ordinal: Int {
        switch self {
        case .timestamp: 0
        case .user: 1
        case .app: 2
        case .event: 3
        case .battery: 4
        case .charging: 5
        case .network: 6
        case .lowPower: 7
        case .screenOn: 8
        }
    }

    static func canonical(_ header: String) -> Field? {
        let name = header.lowercased()
        if let field = Field(rawValue: name) { return field }
        switch name {
        case "time", "ts", "date", "datetime", "time_stamp": return .timestamp
        case "user_id", "userid", "device", "device_id", "uid": return .user
        case "package", "package_name", "bundle", "bundle_id", "app_id", "application", "app_name": return .app
        case "event_type", "type", "action": return .event
        case "battery_level", "level", "battery_pct": return .battery
        case "is_charging", "plugged": return .charging
        case "network_type", "connection": return .network
        case "lowpower", "low_power_mode", "power_save": return .lowPower
        case "screen", "interactive", "is_interactive", "screenon": return .screenOn
        default: return nil
        }
    }
}
