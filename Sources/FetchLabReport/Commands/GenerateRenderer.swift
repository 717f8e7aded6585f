import FetchLabResults


/// The text summary of `fetchlab generate`.
public enum GenerateRenderer {
    public static func text(_ summary: GenerateSummary, output: String) -> String {
        var lines = [
            "\(output): \(TextFormat.count(summary.users)) users × \(summary.days) days from \(summary.start) "
                + "(seed \(summary.seed)) in \(TextFormat.seconds(summary.seconds))"
        ]
        let rows = [
            ("usage.csv.gz", summary.usageEvents, "usage events"),
            ("context.csv.gz", summary.contextSamples, "context samples"),
            ("content.csv.gz", summary.contentUpdates, "content updates"),
            ("truth.json", summary.users, "users' habits"),
        ]
        for (file, count, what) in rows {
            let size = TextFormat.bytes(Int64(summary.files[file] ?? 0))
            lines.append(
                "  \(file.padding(toLength: 15, withPad: " ", startingAt: 0)) \(TextFormat.pad(size, 9, right: true))  "
                    + "\(TextFormat.pad(TextFormat.count(count), 12, right: true)) \(what)")
        }
        return lines.joined(separator: "\n")
    }
}
