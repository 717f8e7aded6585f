import FetchLabResults

extension CompareRenderer {
    /// `compare --format json`: the report's own JSON (`settings`, `policies`), with `run_id` next
    /// to them when the run was stored.
    /// - Parameters:
    ///   - r: the report.
    ///   - runID: the stored run's id, when it was stored.
    ///   - platformInputs: what the logs held for the platform's device rules
    ///   (`platform_inputs`, with `inert` true when nothing), given under iOS or Android.
    public static func json(_ r: ComparisonReport, runID: Int64? = nil, platformInputs: PlatformInputs? = nil)
        -> String
    {
        TextFormat.json(StoredReport(report: r, runID: runID, platformInputs: platformInputs))
    }

    /// The report's keys, `run_id` and `platform_inputs`, in one object.
    struct StoredReport: Encodable {
        var report: ComparisonReport
        var runID: Int64?
        var platformInputs: PlatformInputs? = nil

        enum CodingKeys: String, CodingKey { case runID = "run_id", platformInputs = "platform_inputs" }

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            guard runID != nil || platformInputs != nil else { return }
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(runID, forKey: .runID)
            try c.encodeIfPresent(platformInputs, forKey: .platformInputs)
        }
    }
}
