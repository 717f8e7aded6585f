import FetchLabCore

/// `predict --format json`: every time as ISO-8601 on the user's clock with its offset
/// (`"fetchAt": "2024-03-20T07:50:00+02:00"`) and as UTC microseconds next to it
/// (`"fetchAt_us": 1710913800000000`).
extension PredictionReport {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.encode(user, forKey: JSONKey("user"))
        try c.encodeTime(origin, offset: utcOffset, forKey: "origin")
        try c.encode(utcOffset, forKey: JSONKey("utcOffset"))
        try c.encode(InMinutes(wrappedValue: horizon), forKey: JSONKey("horizonMinutes"))
        try c.encode(InMinutes(wrappedValue: lead), forKey: JSONKey("leadMinutes"))
        try c.encode(threshold, forKey: JSONKey("threshold"))
        try c.encode(InMinutes(wrappedValue: freshness), forKey: JSONKey("freshnessMinutes"))
        try c.encode(blendWeights, forKey: JSONKey("blendWeights"))
        try c.encode(apps.map { RowJSON(row: $0, offset: utcOffset) }, forKey: JSONKey("apps"))
    }

    struct RowJSON: Encodable {
        var row: PredictionRow
        var offset: Int

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: JSONKey.self)
            try c.encode(row.app, forKey: JSONKey("app"))
            try c.encode(row.probability, forKey: JSONKey("probability"))
            try c.encodeTime(row.expectedNext, offset: offset, forKey: "expectedNext")
            try c.encodeTime(row.intervalLow, offset: offset, forKey: "intervalLow")
            try c.encodeTime(row.intervalHigh, offset: offset, forKey: "intervalHigh")
            try c.encode(row.peakScore, forKey: JSONKey("peakScore"))
            try c.encode(row.noFetchReason, forKey: JSONKey("noFetchReason"))
            try c.encode(row.fetches.map { FetchJSON(fetch: $0, offset: offset) }, forKey: JSONKey("fetches"))
        }
    }

    struct FetchJSON: Encodable {
        var fetch: PlannedFetch
        var offset: Int

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: JSONKey.self)
            try c.encodeTime(fetch.fetchAt, offset: offset, forKey: "fetchAt")
            try c.encodeTime(fetch.expectedUse, offset: offset, forKey: "expectedUse")
            try c.encodeTime(fetch.intervalLow, offset: offset, forKey: "intervalLow")
            try c.encodeTime(fetch.intervalHigh, offset: offset, forKey: "intervalHigh")
            try c.encode(fetch.probability, forKey: JSONKey("probability"))
            try c.encode(fetch.score, forKey: JSONKey("score"))
            try c.encode(fetch.outlook, forKey: JSONKey("outlook"))
        }
    }
}
