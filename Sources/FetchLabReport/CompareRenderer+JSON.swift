import FetchLabSimulation

extension CompareRenderer {
    /// `compare --format json`: the report's own JSON (`settings`, `policies`), with `run_id` next
    /// to them when the run was stored.
    public static func json(_ r: ComparisonReport, runID: Int64? = nil) -> String {
        TextFormat.json(StoredReport(report: r, runID: runID))
    }

    /// The report's keys and `run_id`, in one object.
    struct StoredReport: Encodable {
        var report: ComparisonReport
        var runID: Int64?

        enum CodingKeys: String, CodingKey { case runID = "run_id" }

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            guard let runID else { return }
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(runID, forKey: .runID)
        }
    }
}
