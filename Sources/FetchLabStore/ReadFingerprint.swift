import FetchLabCore
import FetchLabIngest
import Foundation

/// What identifies "the same import": the same bytes read with the same options. The same bytes
/// read differently (another `--epoch-unit`, `--timezone`, `--map`, range, user, session gap…)
/// give other rows, so they are another import.
enum ReadFingerprint {
    /// The options that change which rows are read and what they say, as canonical JSON (sorted
    /// keys, every option written out, defaults included). Options that only decide whether a
    /// file fails (`strict`, the decompression limits) or how it is batched are left out.
    static func canonical(_ options: ReadOptions) -> String {
        var parts: [String: Any] = [
            "version": 1,
            "format": options.format?.rawValue ?? "detect",
            "raw_deflate": options.rawDeflate,
            "time_zone": options.timeZone?.identifier ?? "UTC",
            "epoch_unit": options.epochUnit.rawValue,
            "column_map": options.columnMap,
            "session_gap_us": options.sessionGap.value,
            "reorder_window_us": options.reorderWindow.value,
            "exclude": options.excludedApps.sorted(),
            "earliest_us": options.earliest.sinceEpoch.value,
            "latest_us": options.latest.sinceEpoch.value,
        ]
        if let user = options.user { parts["user"] = user }
        // Always written: imports made before the system apps were dropped by default (which kept
        // them, and had no such key) are then "the same import" as neither choice.
        parts["system_apps"] = options.keepSystemApps ? "keep" : "drop"
        // The readers make signal events (issue 26): a file imported by a reader that made none is
        // read again, so that its signals are added (its other records are duplicates).
        parts["signals"] = 1
        // Only when given, so that fingerprints of imports made without it stay the same.
        if let layout = options.dateLayout { parts["date_format"] = layout.description }
        return json(parts)
    }

    /// SHA-256 (hex) of ``canonical(_:)``: stored with each import.
    static func of(_ options: ReadOptions) -> String {
        var hasher = SHA256()
        hasher.update(canonical(options))
        return SHA256.hex(hasher.finalize())
    }

    /// The options for people (`import.options`): the reading options plus those that only decide
    /// whether the file fails.
    static func describe(_ options: ReadOptions) -> String {
        var parts: [String: Any] = [:]
        if let f = options.format { parts["format"] = f.rawValue }
        if let tz = options.timeZone { parts["timezone"] = tz.identifier }
        if options.epochUnit != .auto { parts["epoch_unit"] = options.epochUnit.rawValue }
        if let u = options.user { parts["user"] = u }
        if let layout = options.dateLayout { parts["date_format"] = layout.description }
        if !options.excludedApps.isEmpty { parts["exclude"] = options.excludedApps.joined(separator: " ") }
        parts["system_apps"] = options.keepSystemApps ? "keep" : "drop"
        if options.strict { parts["strict"] = "true" }
        if options.rawDeflate { parts["raw_deflate"] = "true" }
        for (k, v) in options.columnMap { parts["map." + k] = v }
        parts["session_gap_s"] = String(options.sessionGap / .perSecond)
        parts["reorder_window_s"] = String(options.reorderWindow / .perSecond)
        parts["earliest_us"] = String(options.earliest.sinceEpoch.value)
        parts["latest_us"] = String(options.latest.sinceEpoch.value)
        return json(parts)
    }

    /// The key of `import.options` that holds how many rows of system apps the import dropped
    /// (`ReadCounts.systemApps`; absent when none), written when the import finishes.
    static let systemAppRowsKey = "system_app_rows_dropped"

    /// `options` (an `import.options` JSON object) with `key` set to `value`.
    static func adding(_ key: String, _ value: String, to options: String) -> String {
        var parts = (try? JSONSerialization.jsonObject(with: Data(options.utf8))) as? [String: Any] ?? [:]
        parts[key] = value
        return json(parts)
    }

    /// The value of `key` in `options` (an `import.options` JSON object), if it is a string.
    static func value(_ key: String, in options: String) -> String? {
        ((try? JSONSerialization.jsonObject(with: Data(options.utf8))) as? [String: Any])?[key] as? String
    }

    private static func json(_ object: [String: Any]) -> String {
        // Numbers, strings, arrays and objects only: anything else (an `Instant`, not its
        // `sinceEpoch`) would make every fingerprint the hash of nothing.
        assert(JSONSerialization.isValidJSONObject(object), "not JSON: \(object)")
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
