import FetchLabDatasets
import FetchLabResults
import FetchLabSynth
import Foundation

/// `generate` without its options or output: a synthetic population's parameters, and its files
/// written (the same options give the same bytes).
public enum Generation {
    /// The population's parameters: the defaults (with the signals that precede use when
    /// `signals`), each key of the JSON file `config` overriding them. A ``WorkflowError`` when the
    /// file cannot be read or is not a population config.
    public static func population(signals: Bool, config: String?) throws -> PopulationConfig {
        let defaults = signals ? PopulationConfig.withSignals : PopulationConfig()
        guard let config else { return defaults }
        guard let data = FileManager.default.contents(atPath: config) else {
            throw WorkflowError(.failed, "\(config): cannot read the config file")
        }
        do throws(SynthError) { return try PopulationConfig.decode(data, over: defaults) } catch {
            throw WorkflowError(.failed, "\(config): not a population config: \(error.message)")
        }
    }

    /// Writes the population `options` describe into `directory` (created if needed); `progress`
    /// is told how many users are done.
    public static func write(
        _ options: GenerateOptions, to directory: String, progress: (@Sendable (Int) -> Void)? = nil
    ) throws -> GenerateSummary {
        try PopulationWriter(generator: try Generator(options: options)).write(to: directory, progress: progress)
    }
}
