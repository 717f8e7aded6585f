import FetchLabCore
import FetchLabResults

/// One user's device context over time: each field keeps its last sampled value for up to
/// `defaults.hold`, then falls back to its default. Fields are independent (a sample that only
/// reports the network leaves the battery as it was).
public struct ContextTimeline: Sendable {
    struct Track<Value: Sendable>: Sendable {
        var times: [Instant] = []
        var values: [Value] = []

        mutating func append(_ t: Instant, _ v: Value?) {
            guard let v else { return }
            times.append(t)
            values.append(v)
        }

        /// The value of the last sample at or before `t`, if it is at most `hold` old.
        func value(at t: Instant, hold: Microseconds) -> Value? {
            let lo = times.count(upTo: t)
            guard lo > 0, t - times[lo - 1] <= hold else { return nil }
            return values[lo - 1]
        }

        /// ``value(at:hold:)`` for times asked in ascending order: `lo` is the count of samples
        /// at or before the previous time, moved on instead of searched for.
        @inline(__always) func value(at t: Instant, hold: Microseconds, from lo: inout Int) -> Value? {
            while lo < times.count, times[lo] <= t { lo += 1 }
            guard lo > 0, t - times[lo - 1] <= hold else { return nil }
            return values[lo - 1]
        }
    }

    public let defaults: ContextDefaults
    var battery = Track<Double>()
    var charging = Track<Bool>()
    var network = Track<NetworkType>()
    var lowPower = Track<Bool>()

    /// Builds the timeline from samples in time order.
    public init(samples: [ContextSample], defaults: ContextDefaults) {
        self.defaults = defaults
        for s in samples {
            battery.append(s.time, s.battery)
            charging.append(s.time, s.charging)
            network.append(s.time, s.network)
            lowPower.append(s.time, s.lowPower)
        }
    }

    /// Whether any sample exists.
    public var isEmpty: Bool {
        battery.times.isEmpty && charging.times.isEmpty && network.times.isEmpty && lowPower.times.isEmpty
    }

    /// The instants at which the state may change: every sample, and every instant a sampled
    /// value stops holding (unsorted, may repeat).
    public func changePoints() -> [Instant] {
        var out: [Instant] = []
        func add(_ times: [Instant]) {
            for t in times {
                out.append(t)
                out.append(t + defaults.hold + 1)
            }
        }
        add(battery.times)
        add(charging.times)
        add(network.times)
        add(lowPower.times)
        return out
    }

    /// The state at each of `times` (ascending): ``state(at:)`` of each, walking the samples once.
    public func states(at times: [Instant]) -> [DeviceState] {
        let h = defaults.hold
        var cursors = (0, 0, 0, 0)
        return times.map { t in
            DeviceState(
                battery: battery.value(at: t, hold: h, from: &cursors.0) ?? defaults.battery,
                charging: charging.value(at: t, hold: h, from: &cursors.1) ?? defaults.charging,
                network: network.value(at: t, hold: h, from: &cursors.2) ?? defaults.network,
                lowPower: lowPower.value(at: t, hold: h, from: &cursors.3) ?? defaults.lowPower)
        }
    }

    /// The state at `t`.
    public func state(at t: Instant) -> DeviceState {
        let h = defaults.hold
        return DeviceState(
            battery: battery.value(at: t, hold: h) ?? defaults.battery,
            charging: charging.value(at: t, hold: h) ?? defaults.charging,
            network: network.value(at: t, hold: h) ?? defaults.network,
            lowPower: lowPower.value(at: t, hold: h) ?? defaults.lowPower)
    }
}
