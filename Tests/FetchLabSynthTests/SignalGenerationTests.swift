import FetchLabCore
import Foundation
import Testing

@testable import FetchLabSynth

/// `generate --signals`: unlocks, screen-on, notifications and glances consistent with the
/// sessions, their truth in the truth file, and not one launch changed.
@Suite struct SignalGenerationTests {
    static func population(_ config: PopulationConfig, users: Int = 6, days: Int = 21) throws -> [SimulatedUser] {
        var options = GenerateOptions(users: users, days: days, seed: 5, startDay: Personas.start)
        options.config = config
        return try Generator(options: options).simulate(users: 0..<users)
    }

    @Test func signalsOffMeansNoSignalNoDeviceAppAndNoSignalTruth() throws {
        for user in try Self.population(PopulationConfig(), users: 3) {
            #expect(user.truth.signals == nil)
            #expect(!user.history.apps.contains(.device))
            #expect(!user.history.events.contains { $0.kind.isSignal })
        }
    }

    @Test func turningSignalsOnChangesNoUseEvent() throws {
        let plain = try Self.population(PopulationConfig())
        let signalled = try Self.population(.withSignals)
        for (a, b) in zip(plain, signalled) {
            #expect(a.history.launches == b.history.launches)
            #expect(a.history.events == b.history.events.filter { !$0.kind.isSignal })
            #expect(a.history.context == b.history.context)
        }
    }

    @Test func signalsPrecedeTheLaunchesTheyBelongToAndMatchTheTruth() throws {
        var sessions = 0
        var unlocked = 0
        var unsignalled = 0
        for user in try Self.population(.withSignals) {
            let h = user.history
            let truth = try #require(user.truth.signals)
            let device = Int32(try #require(h.apps.firstIndex(of: .device)))
            let unlocks = h.events.filter { $0.kind == .unlock }
            let screenOns = h.events.filter { $0.kind == .screenOn }
            #expect(unlocks.allSatisfy { $0.app == device } && screenOns.allSatisfy { $0.app == device })
            // Every unlock opens a session: a launch within 20 s after it, the screen on ≤ 3 s before.
            for u in unlocks {
                #expect(h.launches.contains { $0.time > u.time && $0.time - u.time <= .seconds(20) })
                #expect(screenOns.contains { $0.time < u.time && u.time - $0.time <= .seconds(3) })
            }
            #expect(abs(unlocks.count - truth.unlockedSessions) <= 2)  // same-second collisions only
            #expect(screenOns.count >= unlocks.count + truth.glances - 3)
            // Prompted launches: a launch of the notified app 1–10 min after its notification.
            let notifications = h.events.filter { $0.kind == .notification }
            let prompted = notifications.filter { n in
                h.launches.contains {
                    $0.app == n.app && $0.time - n.time >= .minutes(1) && $0.time - n.time <= .minutes(10)
                }
            }
            #expect(prompted.count >= truth.notifiedLaunches - 2)
            #expect(notifications.count >= truth.notifiedLaunches + truth.spuriousNotifications - 3)
            sessions += truth.sessions
            unlocked += truth.unlockedSessions
            unsignalled += truth.sessionsWithoutSignal
        }
        // The stated shares: unlocks before 80 % of sessions; neither signal before (1 − .8)(1 − .25) = 15 %.
        let s = Double(sessions)
        #expect(sessions > 500)
        #expect(abs(Double(unlocked) / s - 0.8) < 0.04)
        #expect(abs(Double(unsignalled) / s - 0.15) < 0.04)
    }

    @Test func aConfigFileOverridesTheSignalDefaultsItNames() throws {
        let merged = try PopulationConfig.decode(Data(#"{"glancesPerDay": 0}"#.utf8), over: .withSignals)
        #expect(merged.glancesPerDay == 0 && merged.unlockProbability == 0.8)
        #expect(try PopulationConfig.decode(Data("{}".utf8)) == PopulationConfig())
        var bad = PopulationConfig()
        bad.unlockProbability = 1.5
        bad.glancesPerDay = -1
        #expect(bad.problems().contains("unlockProbability must be in 0…1, not 1.5"))
        #expect(bad.problems().contains("glancesPerDay must be in 0…200, not -1.0"))
    }
}
