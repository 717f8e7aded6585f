import FetchLabCore
import Testing
import _FetchLabTestSupport

/// Signals (unlock, screen on, notification, system UI) are event kinds of their own: named,
/// read back from their names and the sources' spellings, and never launches.
@Suite struct SignalKindTests {
    @Test func everyKindReadsBackFromItsName() {
        for kind in UsageEventKind.allCases {
            #expect(UsageEventKind(name: kind.name) == kind)
            #expect(UsageEventKind(name: kind.name.uppercased()) == kind)
        }
        #expect(UsageEventKind(name: "KEYGUARD_HIDDEN") == .unlock)
        #expect(UsageEventKind(name: "SCREEN_INTERACTIVE") == .screenOn)
        #expect(UsageEventKind(name: "NOTIFICATION_INTERRUPTION") == .notification)
    }

    @Test func signalsAreTheKindsThatAreNotDoneToAnApp() {
        #expect(UsageEventKind.allCases.filter(\.isSignal) == [.unlock, .screenOn, .notification, .systemUI])
        #expect(UsageEventKind.allCases.filter(\.isDeviceSignal) == [.unlock, .screenOn])
        #expect(!UsageEventKind.launch.isSignal && !UsageEventKind.forceQuit.isSignal)
        #expect(AppID.device.name == "(device)")
    }
}
