import FetchLabResults
import FetchLabSimulation
import Testing

@testable import fetchlab

/// The replay's options take their defaults from the models: given nothing, they are the
/// models' own settings.
@Suite struct ReplayOptionsDefaultsTests {
    @Test func noOptionsGiveTheModelsDefaults() throws {
        #expect(try ReplayOptions.parse([]).settings() == ReplaySettings())
        let ios = try ReplayOptions.parse([
            "--platform", "ios", "--low-battery", "30", "--standby-deferrals", "1h,2h,3h",
        ])
        .settings()
        #expect(ios.platform.kind == .ios)
        #expect(ios.cost.lowBatteryPercent == 30 && ios.platform.lowBatteryPercent == 30)
        #expect(ios.platform.rareDeferral == .hours(3))
    }
}
