import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabSynth

/// Multi-app sessions: hand-made personas with session habits, each isolating one mechanism.
@Suite struct SessionTests {
    static func habits(
        idle: Double = 0, continuing: Double = 0, returning: Double = 0, followUp: Double = 0,
        followUpMinutes: Double = 30
    ) -> SessionHabits {
        SessionHabits(
            idleSessionsPerDay: idle, continueProbability: continuing, returnProbability: returning,
            switchSeconds: 15, followUpProbability: followUp, followUpMinutes: followUpMinutes, followUpSpread: 0.1,
            rhythm: [RhythmPeak(minute: 1200, spreadMinutes: 60, weight: 1)])
    }

    static func app(_ name: String, peaks: [Peak] = [], next: [String] = [], minutes: Double = 1) -> AppHabit {
        AppHabit(
            app: name, kind: peaks.isEmpty ? .irregular : .routine, peaks: peaks, ratePerDay: peaks.isEmpty ? 0 : nil,
            sessionMinutes: minutes, entryWeight: 1,
            next: next.map { NextApp(app: $0, probability: 1 / Double(next.count)) })
    }

    /// Launches (app index, local seconds) in time order, and the pairs of consecutive launches at
    /// most 15 minutes apart.
    static func run(_ truth: UserTruth, days: Int = 40) -> (launches: [UsageEvent], pairs: [(Int32, Int32)]) {
        let launches = Personas.generator(days: days).simulate(truth: truth).history.launches
        let pairs = zip(launches, launches.dropFirst()).filter { $1.time - $0.time <= .minutes(15) }
            .map { ($0.app, $1.app) }
        return (launches, pairs)
    }

    @Test func aSessionGoesOnByTheUsersTransitionHabits() {
        var truth = Personas.user(apps: [
            Self.app("com.example.news", peaks: [Personas.peak(720, p: 1)], next: ["com.example.social"]),
            Self.app("com.example.social", next: ["com.example.bank"]),
            Self.app("com.example.bank", next: ["com.example.news"]),
        ])
        truth.sessions = Self.habits(continuing: 0.5)
        let (launches, pairs) = Self.run(truth)
        let news = launches.filter { $0.app == 0 }.count
        #expect(news >= 38)
        // Only the habitual moves happen: news → social → bank → news.
        #expect(!pairs.isEmpty && pairs.allSatisfy { ($0.0 + 1) % 3 == $0.1 })
        // Half the time the user goes on after news.
        let goneOn = Double(pairs.filter { $0.0 == 0 }.count) / Double(news)
        #expect((0.35...0.65).contains(goneOn))
        // Sessions without habits stay single-app.
        truth.sessions = nil
        #expect(Self.run(truth).launches.allSatisfy { $0.app == 0 })
    }

    @Test func aSessionReturnsToAnAppUsedEarlierInIt() {
        var truth = Personas.user(apps: [
            Self.app("com.example.messages", peaks: [Personas.peak(600, p: 1)], next: ["com.example.social"]),
            Self.app("com.example.social", next: ["com.example.bank"]),
            Self.app("com.example.bank"),
        ])
        truth.sessions = Self.habits(continuing: 0.8, returning: 1)
        let (_, pairs) = Self.run(truth)
        // messages → social, then always back: messages ↔ social, never on to bank.
        #expect(pairs.count > 60)
        #expect(pairs.allSatisfy { ($0.0 == 0 && $0.1 == 1) || ($0.0 == 1 && $0.1 == 0) })
    }

    @Test func followUpSessionsComeBackTensOfMinutesLater() {
        var truth = Personas.user(apps: [Self.app("com.example.mail", peaks: [Personas.peak(540, p: 1)], minutes: 0.1)])
        truth.sessions = Self.habits(followUp: 1, followUpMinutes: 30)
        let (launches, pairs) = Self.run(truth, days: 10)
        #expect(pairs.isEmpty)  // no launch within 15 minutes of another
        let gaps = zip(launches, launches.dropFirst()).map { Double($1.time - $0.time) / 60e6 }.filter { $0 < 120 }
        #expect(gaps.count > 100)  // a chain of follow-ups through each day, 09:00 to bedtime
        let sorted = gaps.sorted()
        #expect(abs(sorted[sorted.count / 2] - 30.5) < 3)
    }

    @Test func aRoutineInterruptsWhateverTheUserIsDoingAndKeepsItsTime() {
        var noon = Personas.peak(720, spread: 0, p: 1)
        noon.weekendMinute = 720
        var truth = Personas.user(apps: [
            Self.app("com.example.news", peaks: [noon], next: ["com.example.social"]),
            Self.app("com.example.social", next: ["com.example.news"], minutes: 5),
        ])
        // Busy all day: many long idle sessions of social.
        truth.apps[1].entryWeight = 1
        truth.apps[0].entryWeight = 0
        truth.sessions = Self.habits(idle: 40, continuing: 0.9)
        let (launches, _) = Self.run(truth, days: 14)
        let atNoon = launches.filter { $0.app == 0 && $0.localMinute == 720 && $0.localSeconds % 60 == 0 }
        #expect(Set(atNoon.map(\.localDay)).count == 14)
        #expect(launches.filter { $0.app == 1 }.count > 14 * 20)
    }

    @Test func usersGetTheirOwnSessionHabitsWithinTheConfigRanges() {
        let config = PopulationConfig()
        let factory = PersonaFactory(config: config, seed: 5, days: 28)
        let users = (0..<40).map(factory.user)
        let habits = users.compactMap(\.sessions)
        #expect(habits.count == 40)
        let continuing = habits.map(\.continueProbability)
        #expect(
            continuing.allSatisfy { (config.continueProbability.min...config.continueProbability.max).contains($0) })
        #expect(Set(continuing).count > 30)
        for user in users {
            for habit in user.apps {
                let next = habit.next ?? []
                // Every other app, but those whose weight rounds to 0.000.
                #expect(next.count <= user.apps.count - 1 && next.count >= user.apps.count / 2)
                #expect(abs(next.reduce(0) { $0 + $1.probability } - 1) < 0.01)
                #expect(!next.contains { $0.app == habit.app })
                #expect((habit.entryWeight ?? 0) > 0)
            }
        }
        // Transition habits differ between users: the favourite next app after messages.
        let favourites = Set(users.compactMap { $0.apps.first { $0.app == "com.example.messages" }?.next?.first?.app })
        #expect(favourites.count > 3)
    }

    @Test func theTruthFileCarriesSessionAndTransitionParameters() throws {
        let generator = Personas.generator(days: 7, users: 2)
        let truth = generator.simulate(user: 1).truth
        let json = String(decoding: Generator.truthJSON(truth), as: UTF8.self)
        for key in [
            "\"sessions\"", "\"continueProbability\"", "\"returnProbability\"", "\"followUpMinutes\"", "\"rhythm\"",
            "\"next\"", "\"entryWeight\"",
        ] {
            #expect(json.contains(key), "\(key)")
        }
        #expect(try JSONDecoder().decode(UserTruth.self, from: Data(json.utf8)) == truth)
    }

    @Test func theConfigMovesTheSessionParameters() throws {
        let config = try PopulationConfig.decode(
            Data(
                #"{"continueProbability": {"min": 0, "max": 0}, "idleSessionsPerDay": {"min": 0, "max": 0}, "routineShare": 1, "followUpProbability": {"min": 0, "max": 0}}"#
                    .utf8))
        #expect(config.problems().isEmpty)
        let factory = PersonaFactory(config: config, seed: 2, days: 21)
        let users = (0..<10).map(factory.user)
        #expect(users.allSatisfy { $0.sessions?.continueProbability == 0 && $0.sessions?.idleSessionsPerDay == 0 })
        // Every clock-type app of the catalogue is a routine now.
        for user in users {
            for habit in user.apps where AppCatalog.template(habit.app)?.kind == .routine {
                #expect(habit.kind == .routine)
            }
        }
        var bad = PopulationConfig()
        bad.continueProbability = .init(0.5, 0.99)
        bad.returnProbability = .init(0.6, 0.2)
        bad.routineShare = 2
        let problems = bad.problems().joined(separator: "; ")
        #expect(problems.contains("continueProbability"))
        #expect(problems.contains("returnProbability"))
        #expect(problems.contains("routineShare"))
    }
}
