import FetchLabDatasets

/// The text summary of `fetchlab generate`.
enum GenerateRenderer {
    static func text(_ summary: GenerateSummary, output: String) -> String {
        var lines = [
            "\(output): \(Format.count(summary.users)) users × \(summary.days) days from \(summary.start) "
                + "(seed \(summary.seed)) in \(Format.seconds(summary.seconds))"
        ]
        let rows = [
            ("usage.csv.gz", summary.usageEvents, "usage events"),
            ("context.csv.gz", summary.contextSamples, "context samples"),
            ("content.csv.gz", summary.contentUpdates, "content updates"),
            ("truth.json", summary.users, "users' habits"),
        ]
        for (file, count, what) in rows {
            let size = Format.bytes(Int64(summary.files[file] ?? 0))
            lines.append(
                "  \(file.padding(toLength: 15, withPad: " ", startingAt: 0)) \(size.leftPadded(9))  "
                    + "\(Format.count(count).leftPadded(12)) \(what)")
        }
        return lines.joined(separator: "\n")
    }
}
