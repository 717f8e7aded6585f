import FetchLabCore

/// What a fetch costs. Every constant is an option of `fetchlab compare`; the radio figures are
/// the published LTE and Wi-Fi measurements of Huang et al., "A Close Examination of Performance
/// and Power Characteristics of 4G LTE Networks" (MobiSys 2012, Tables 3–4): LTE promotion
/// 260 ms at 1,210 mW and tail 11.6 s at 1,060 mW, base transfer power 1,288 mW; Wi-Fi promotion
/// 79 ms at 124 mW and tail 238 ms at 119 mW, transfer about 0.5 W (132.9 mW base + 137 mW/Mbps
/// at ~3 Mbps). A short transfer on LTE therefore costs mostly tail: a 3 s fetch ≈ 0.3 J
/// promotion + 3.9 J transfer + 12.3 J tail. The battery is 12 Wh (a current phone's 3,200 mAh
/// at 3.85 V).
public struct CostModel: Sendable, Hashable, Codable {
    /// How long one fetch keeps the radio transferring, and how much it downloads.
    public var fetchDuration: Microseconds = .seconds(3)
    public var fetchBytes: Int64 = 150_000
    /// Per-app overrides of duration and size (by app name).
    public var perApp: [String: AppFetchCost] = [:]

    public var cellularTransferWatts = 1.288
    public var cellularPromotion: Microseconds = 260_000
    public var cellularPromotionWatts = 1.210
    public var cellularTail: Microseconds = 11_576_000
    public var cellularTailWatts = 1.060

    public var wifiTransferWatts = 0.54
    public var wifiPromotion: Microseconds = 79_000
    public var wifiPromotionWatts = 0.124
    public var wifiTail: Microseconds = 238_000
    public var wifiTailWatts = 0.119

    /// Battery capacity, watt-hours.
    public var batteryWattHours = 12.0
    /// "Low battery": below this level and not charging.
    public var lowBatteryPercent = 20.0

    public init() {}

    public var batteryJoules: Double { batteryWattHours * 3_600 }

    /// Duration and size of a fetch of `app`.
    public func fetch(of app: String) -> AppFetchCost {
        perApp[app] ?? AppFetchCost(duration: fetchDuration, bytes: fetchBytes)
    }

    enum CodingKeys: String, CodingKey {
        case fetchDuration = "fetch_seconds", fetchBytes = "fetch_bytes", perApp = "per_app"
        case cellularTransferWatts = "cellular_transfer_w", cellularPromotion = "cellular_promotion_s"
        case cellularPromotionWatts = "cellular_promotion_w", cellularTail = "cellular_tail_s"
        case cellularTailWatts = "cellular_tail_w"
        case wifiTransferWatts = "wifi_transfer_w", wifiPromotion = "wifi_promotion_s"
        case wifiPromotionWatts = "wifi_promotion_w", wifiTail = "wifi_tail_s", wifiTailWatts = "wifi_tail_w"
        case batteryWattHours = "battery_wh", lowBatteryPercent = "low_battery_pct"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(fetchDuration.inSeconds, forKey: .fetchDuration)
        try c.encode(fetchBytes, forKey: .fetchBytes)
        try c.encode(perApp, forKey: .perApp)
        try c.encode(cellularTransferWatts, forKey: .cellularTransferWatts)
        try c.encode(cellularPromotion.inSeconds, forKey: .cellularPromotion)
        try c.encode(cellularPromotionWatts, forKey: .cellularPromotionWatts)
        try c.encode(cellularTail.inSeconds, forKey: .cellularTail)
        try c.encode(cellularTailWatts, forKey: .cellularTailWatts)
        try c.encode(wifiTransferWatts, forKey: .wifiTransferWatts)
        try c.encode(wifiPromotion.inSeconds, forKey: .wifiPromotion)
        try c.encode(wifiPromotionWatts, forKey: .wifiPromotionWatts)
        try c.encode(wifiTail.inSeconds, forKey: .wifiTail)
        try c.encode(wifiTailWatts, forKey: .wifiTailWatts)
        try c.encode(batteryWattHours, forKey: .batteryWattHours)
        try c.encode(lowBatteryPercent, forKey: .lowBatteryPercent)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        // Spans in seconds; out of range is an error, never a trap.
        func seconds(_ k: CodingKeys) throws -> Microseconds { try c.decodeSpan(.perSecond, forKey: k) }
        fetchDuration = try seconds(.fetchDuration)
        fetchBytes = try c.decode(Int64.self, forKey: .fetchBytes)
        perApp = try c.decodeIfPresent([String: AppFetchCost].self, forKey: .perApp) ?? [:]
        cellularTransferWatts = try c.decode(Double.self, forKey: .cellularTransferWatts)
        cellularPromotion = try seconds(.cellularPromotion)
        cellularPromotionWatts = try c.decode(Double.self, forKey: .cellularPromotionWatts)
        cellularTail = try seconds(.cellularTail)
        cellularTailWatts = try c.decode(Double.self, forKey: .cellularTailWatts)
        wifiTransferWatts = try c.decode(Double.self, forKey: .wifiTransferWatts)
        wifiPromotion = try seconds(.wifiPromotion)
        wifiPromotionWatts = try c.decode(Double.self, forKey: .wifiPromotionWatts)
        wifiTail = try seconds(.wifiTail)
        wifiTailWatts = try c.decode(Double.self, forKey: .wifiTailWatts)
        batteryWattHours = try c.decode(Double.self, forKey: .batteryWattHours)
        lowBatteryPercent = try c.decode(Double.self, forKey: .lowBatteryPercent)
    }

    /// One radio's constants.
    public struct Radio: Sendable {
        public var transferWatts: Double
        public var promotion: Microseconds
        public var promotionWatts: Double
        public var tail: Microseconds
        public var tailWatts: Double
    }

    /// The constants of the radio a fetch on `network` uses.
    public func radio(_ network: NetworkType) -> Radio {
        network == .cellular
            ? Radio(
                transferWatts: cellularTransferWatts, promotion: cellularPromotion,
                promotionWatts: cellularPromotionWatts, tail: cellularTail, tailWatts: cellularTailWatts)
            : Radio(
                transferWatts: wifiTransferWatts, promotion: wifiPromotion, promotionWatts: wifiPromotionWatts,
                tail: wifiTail, tailWatts: wifiTailWatts)
    }

    /// The energy of each fetch of one device, in joules, in the order given. Fetches on the same
    /// radio coalesce: a fetch that starts while the radio is still transferring or in its tail
    /// from an earlier one pays no promotion, and the earlier one pays its tail only up to the
    /// later start, so a batch pays one promotion and one tail.
    public func energy(of fetches: [RadioUse]) -> [Double] {
        var out = [Double](repeating: 0, count: fetches.count)
        for network in [NetworkType.wifi, .cellular] {
            let r = radio(network)
            // (start, index) of this radio's fetches, in start order (ties: input order).
            var order: [(start: Instant, index: Int)] = []
            order.reserveCapacity(fetches.count)
            for (i, f) in fetches.enumerated() where f.network == network { order.append((f.start, i)) }
            order.sort { $0.start != $1.start ? $0.start < $1.start : $0.index < $1.index }
            r.coalescedJoules(
                count: order.count, start: { order[$0].start }, duration: { fetches[order[$0].index].duration }
            ) { out[order[$0].index] = $1 }
        }
        return out
    }
}

extension CostModel.Radio {
    /// The joules of each of `count` fetches on this radio, given in start order (ties in input
    /// order) by `start(n)` and `duration(n)`; `write(n, joules)` receives the n-th fetch's. A
    /// fetch that starts while the radio is still transferring or in its tail from an earlier one
    /// pays no promotion, and the earlier one pays its tail only up to the later start. The one
    /// arithmetic of ``CostModel/energy(of:)`` and of the replay's energy of a user's fetches.
    @inlinable public func coalescedJoules(
        count: Int, start: (Int) -> Instant, duration: (Int) -> Microseconds, _ write: (Int, Double) -> Void
    ) {
        let promotionJoules = promotion.inSeconds * promotionWatts
        var busyUntil = Instant.distantPast  // end of the last transfer on this radio
        for n in 0..<count {
            let begins = start(n)
            let lasts = duration(n)
            var joules = lasts.inSeconds * transferWatts
            // Promotion unless the radio is still up (transferring or in its tail).
            if busyUntil == .distantPast || begins > busyUntil + tail { joules += promotionJoules }
            // Tail until the next transfer on this radio begins, at most the whole tail.
            let transferEnd = max(begins + lasts, busyUntil)
            var tailSpan = tail
            if n + 1 < count { tailSpan = min(tailSpan, max(0, start(n + 1) - transferEnd)) }
            joules += tailSpan.inSeconds * tailWatts
            busyUntil = transferEnd
            write(n, joules)
        }
    }
}

/// How long a fetch of one app takes and how much it downloads.
public struct AppFetchCost: Sendable, Hashable, Codable {
    public var duration: Microseconds
    public var bytes: Int64

    public init(duration: Microseconds, bytes: Int64) {
        self.duration = duration
        self.bytes = bytes
    }
}

/// One fetch as the radio sees it.
public struct RadioUse: Sendable, Hashable {
    public var start: Instant
    public var duration: Microseconds
    /// `.none` is costed as Wi-Fi (a fetch granted without a network, under `--platform none`).
    public var network: NetworkType

    public init(start: Instant, duration: Microseconds, network: NetworkType) {
        self.start = start
        self.duration = duration
        self.network = network == .none ? .wifi : network
    }
}
