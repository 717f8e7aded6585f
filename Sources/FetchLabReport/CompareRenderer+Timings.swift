import FetchLabResults
import Foundation

extension CompareRenderer {
    /// `compare --timings`' lines on stderr: per family, its policies, CPU seconds and million
    /// launch·policy steps per CPU second (the launches of the evaluated pairs × its policies over
    /// its seconds), then the total. `Benchmarks/replay-benchmark.sh` reads these lines.
    public static func timings(_ t: ReplayTimings) -> [String] {
        func line(_ name: String, _ policies: Int, _ seconds: Double) -> String {
            let rate = t.millionStepsPerSecond(policies: policies, seconds: seconds)
            return "  \(name): \(policies) polic\(policies == 1 ? "y" : "ies"), \(String(format: "%.3f", seconds)) s, "
                + "\(String(format: "%.1f", rate)) M launch·policy steps/s"
        }
        return ["timings: \(t.launches) launches of evaluated pairs; CPU seconds summed over threads"]
            + t.families.map { line($0.name, $0.policies, $0.cpuSeconds) }
            + [line("total", t.policies, t.cpuSeconds)]
    }
}
