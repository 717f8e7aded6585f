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
    /// Every policy's, and their sum in the order replayed.
    public var policies: Int
    public var cpuSeconds: Double
    /// Launches of the evaluated pairs.
    public var launches: Int

    /// The timings of policies of `families` that took `cpuSeconds` each (the same order).
    public init(families: [String], cpuSeconds: [Double], launches: Int) {
        var order: [String] = []
        var byFamily: [String: Family] = [:]
        for (name, seconds) in zip(families, cpuSeconds) {
            if byFamily[name] == nil { order.append(name) }
            byFamily[name, default: Family(name: name, policies: 0, cpuSeconds: 0)].policies += 1
            byFamily[name, default: Family(name: name, policies: 0, cpuSeconds: 0)].cpuSeconds += seconds
        }
        self.families = order.compactMap { byFamily[$0] }
        self.policies = families.count
        self.cpuSeconds = cpuSeconds.reduce(0, +)
        self.launches = launches
    }

    /// Launch·policy steps per CPU second, in millions, of `policies` policies that took `seconds`
    /// (0 when they took none).
    public func millionStepsPerSecond(policies: Int, seconds: Double) -> Double {
        seconds > 0 ? Double(launches) * Double(policies) / seconds / 1e6 : 0
    }
}
