/// Where a comparison's CPU time went (`compare --timings`): per family, its policies and their CPU
/// seconds summed over threads, in the order the families were first replayed; the total over
/// every policy; and the launches of the evaluated pairs, each of which every policy steps through.
public struct ReplayTimings: Sendable, Hashable {
    /// One family's policies and CPU seconds.
    public struct Family: Sendable, Hashable {
        public var name: String
        public var policies: Int
        public var cpuSeconds: Double

        public init(name: String, policies: Int, cpuSeconds: Double) {
            self.name = name
            self.policies = policies
            self.cpuSeconds = cpuSeconds
        }
    }

    public var families: [Family]
    /// Every policy's CPU seconds, summed in the order replayed.
    public var cpuSeconds: Double
    /// Launches of the evaluated pairs.
    public var launches: Int

    /// Every policy replayed.
    public var policies: Int { families.reduce(0) { $0 + $1.policies } }

    /// The timings of policies of `families` that took `cpuSeconds` each (the same order).
    public init(families: [String], cpuSeconds: [Double], launches: Int) {
        var grouped: [Family] = []
        for (name, seconds) in zip(families, cpuSeconds) {
            if let i = grouped.firstIndex(where: { $0.name == name }) {
                grouped[i].policies += 1
                grouped[i].cpuSeconds += seconds
            } else {
                grouped.append(Family(name: name, policies: 1, cpuSeconds: seconds))
            }
        }
        self.families = grouped
        self.cpuSeconds = cpuSeconds.reduce(0, +)
        self.launches = launches
    }

    /// Launch·policy steps per CPU second, in millions, of `policies` policies that took `seconds`
    /// (0 when they took none).
    public func millionStepsPerSecond(policies: Int, seconds: Double) -> Double {
        seconds > 0 ? Double(launches) * Double(policies) / seconds / 1e6 : 0
    }
}
