import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabDatasets
@testable import FetchLabSynth

/// Hand-made personas and small populations, all with fixed seeds.
enum Personas {
    static let start = CivilDate(year: 2024, month: 3, day: 4).daysSince1970  // a Monday

    static func peak(
        _ minute: Double, spread: Double = 10, p: Double = 0.9, weekdayOnly: Bool = false, drift: Double = 0
    )
        -> Peak
    {
        Peak(
            minute: minute, time: PersonaFactory.hhmm(minute), spreadMinutes: spread, probability: p,
            weekdayOnly: weekdayOnly, weekendMinute: weekdayOnly ? nil : minute,
            weekendProbability: weekdayOnly ? 0 : p,
            driftMinutesPerWeek: drift)
    }

    static func user(zone: String = "Europe/Berlin", apps: [AppHabit]) -> UserTruth {
        UserTruth(
            name: "u00001", timeZone: zone, wakeMinute: 400, weekendWakeMinute: 480, sleepMinute: 1380, works: true,
            leaveHomeMinute: 460, arriveWorkMinute: 500, leaveWorkMinute: 1020, arriveHomeMinute: 1060,
            cellularAtWork: false, lowPowerThreshold: nil, daytimeChargeProbability: 0, screenDrainPerMinute: 0.2,
            vacation: nil, trip: nil, offDays: [], refreshOff: nil, apps: apps)
    }

    static func routine(_ app: String, _ peaks: [Peak]) -> AppHabit {
        AppHabit(app: app, kind: .routine, peaks: peaks, sessionMinutes: 3)
    }

    static func generator(days: Int, seed: UInt64 = 11, users: Int = 1) -> Generator {
        try! Generator(options: GenerateOptions(users: users, days: days, seed: seed, startDay: start))
    }

    /// Local minute of day and local weekday (1 = Sunday) of an event.
    static func local(_ utc: Int, _ offset: some BinaryInteger) -> (minute: Double, weekday: Int, day: Int) {
        let local = Int64(utc) + Int64(offset)
        let day = LocalCalendar.day(localSeconds: local)
        return (Double(local - Int64(day) * Seconds.perDay) / 60, LocalCalendar.weekday(day), day)
    }
}

/// Whole UTC seconds, as the personas' expectations are written.
extension UsageEvent {
    var utc: Int { Int(time.wholeSeconds) }
}

extension ContextSample {
    var utc: Int { Int(time.wholeSeconds) }
    var offset: Int32 { utcOffset ?? 0 }
}

@Suite struct HabitTests {
    @Test func aNoonHabitLaunchesMostlyBetween1130And1230LocalAcrossDST() {
        let truth = Personas.user(apps: [Personas.routine("com.example.news", [Personas.peak(720)])])
        let events = Personas.generator(days: 56).simulate(truth: truth).history.allEvents
        let launches = events.filter { $0.kind == .launch }
        #expect(launches.count > 40)
        let inWindow = launches.filter { (690.0..<750.0).contains(Personas.local($0.utc, $0.offset).minute) }
        #expect(Double(inWindow.count) / Double(launches.count) > 0.95)
        // Berlin changes to summer time on 2024-03-31: +01:00 before, +02:00 after, noon stays noon.
        let dst = CivilDate(year: 2024, month: 3, day: 31).daysSince1970 * Int(Seconds.perDay)
        let zone = TimeZone(identifier: "Europe/Berlin")!
        for e in events {
            #expect(e.offset == (e.utc < dst ? 3600 : 7200))
            #expect(Int(e.offset) == zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(e.utc))))
        }
        let utcHours = Set(inWindow.map { ($0.utc % 86_400) / 3600 })
        #expect(utcHours.isSuperset(of: [10, 11]))
    }

    @Test func weekdayOnlyHabitsSkipWeekendsAndWeekendsStartLater() {
        var commute = Personas.routine("com.example.podcast", [Personas.peak(495, weekdayOnly: true)])
        commute.sessionMinutes = 20
        var lunch = Personas.peak(720)
        lunch.weekendMinute = 810
        let truth = Personas.user(apps: [commute, Personas.routine("com.example.news", [lunch])])
        let events = Personas.generator(days: 42).simulate(truth: truth).history.allEvents
        let launches = events.filter { $0.kind == .launch }
        let podcast = launches.filter { $0.app == 0 }.map { Personas.local($0.utc, $0.offset) }
        #expect(podcast.count > 20)
        #expect(podcast.allSatisfy { $0.weekday != 1 && $0.weekday != 7 })
        let news = launches.filter { $0.app == 1 }.map { Personas.local($0.utc, $0.offset) }
        let weekend = news.filter { $0.weekday == 1 || $0.weekday == 7 }.map(\.minute)
        let weekday = news.filter { $0.weekday != 1 && $0.weekday != 7 }.map(\.minute)
        #expect(weekend.count > 5 && weekday.count > 15)
        let mean = { (xs: [Double]) in xs.reduce(0, +) / Double(xs.count) }
        #expect(abs(mean(weekday) - 720) < 10)
        #expect(abs(mean(weekend) - 810) < 10)
    }

    @Test func aDriftingHabitMovesByItsRatePerWeek() {
        let truth = Personas.user(apps: [
            Personas.routine("com.example.news", [Personas.peak(720, spread: 5, p: 1, drift: 60)])
        ])
        let events = Personas.generator(days: 35).simulate(truth: truth).history.allEvents
        let local = events.filter { $0.kind == .launch }.map { Personas.local($0.utc, $0.offset) }
        let firstWeek = local.filter { $0.day - Personas.start < 7 }.map(\.minute)
        let lastWeek = local.filter { $0.day - Personas.start >= 28 }.map(\.minute)
        let mean = { (xs: [Double]) in xs.reduce(0, +) / Double(xs.count) }
        // Day 3 on average in week 1 (+26 min), day 31 in week 5 (+266 min).
        #expect(abs(mean(firstWeek) - (720 + 60 * 3.0 / 7)) < 8)
        #expect(abs(mean(lastWeek) - (720 + 60 * 31.0 / 7)) < 8)
    }

    @Test func aHabitualSequenceFollowsWithinMinutes() {
        var b = Personas.routine("com.example.social", [])
        b.kind = .irregular
        b.ratePerDay = 0
        b.follows = Follow(after: "com.example.mail", probability: 0.8, delayMinutes: 1.5)
        let truth = Personas.user(apps: [Personas.routine("com.example.mail", [Personas.peak(540, p: 1)]), b])
        let events = Personas.generator(days: 30).simulate(truth: truth).history.allEvents
        let a = events.filter { $0.kind == .launch && $0.app == 0 }
        let bLaunches = events.filter { $0.kind == .launch && $0.app == 1 }
        let followed = a.filter { x in bLaunches.contains { $0.utc > x.utc && $0.utc - x.utc < 600 } }
        #expect(a.count >= 28)
        #expect((0.65...0.95).contains(Double(followed.count) / Double(a.count)))
        #expect(bLaunches.count == followed.count)  // B is only ever used right after A
    }

    @Test func offDaysVacationsAndRefreshSwitches() {
        var truth = Personas.user(apps: [Personas.routine("com.example.news", [Personas.peak(720, p: 1)])])
        truth.offDays = [2, 3]
        truth.vacation = DayRange(start: 10, end: 20)
        truth.refreshOff = RefreshOff(app: "com.example.news", days: DayRange(start: 5, end: 8))
        let events = Personas.generator(days: 28).simulate(truth: truth).history.allEvents
        let day = { (e: UsageEvent) in Personas.local(e.utc, e.offset).day - Personas.start }
        let launches = events.filter { $0.kind == .launch }
        #expect(!launches.contains { [2, 3].contains(day($0)) })
        let onVacation = launches.filter { (10..<20).contains(day($0)) }.count
        let atHome = launches.filter { (20..<28).contains(day($0)) }.count
        #expect(onVacation <= 7)  // probability × 0.4 on 10 days
        #expect(atHome == 8)
        #expect(events.filter { $0.kind == .refreshOff }.map(day) == [5])
        #expect(events.filter { $0.kind == .refreshOn }.map(day) == [8])
    }

    @Test func aTripMovesTheClockToTheTripZone() {
        var truth = Personas.user(apps: [Personas.routine("com.example.news", [Personas.peak(720, p: 1)])])
        truth.trip = Trip(days: DayRange(start: 7, end: 12), timeZone: "Asia/Tokyo")
        let simulated = Personas.generator(days: 16).simulate(truth: truth).history
        let (events, context) = (simulated.allEvents, simulated.context)
        for e in events {
            let d = Personas.local(e.utc, e.offset).day - Personas.start
            #expect(e.offset == ((7..<12).contains(d) ? 9 * 3600 : 3600))
        }
        // Still noon, local to wherever the user is.
        for e in events where e.kind == .launch {
            #expect((660.0..<780.0).contains(Personas.local(e.utc, e.offset).minute))
        }
        // Time only moves forward, even when the clock jumps east.
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.utc < $1.utc })
        #expect(zip(context, context.dropFirst()).allSatisfy { $0.utc < $1.utc })
    }
}

@Suite struct DeviceContextTests {
    let population = Personas.generator(days: 28, seed: 5, users: 40)

    @Test func chargingHappensMostlyOvernight() {
        var overnight = 0
        var charging = 0
        for i in 0..<40 {
            for c in population.simulate(user: i).history.context where c.charging == true {
                charging += 1
                let hour = Int(Personas.local(c.utc, c.offset).minute) / 60
                if hour >= 22 || hour < 9 { overnight += 1 }
            }
        }
        #expect(charging > 1000)
        #expect(Double(overnight) / Double(charging) > 0.8)
    }

    @Test func lowPowerModeOnlyBelowTheThresholdAndOnlyForSomeUsers() {
        var withLowPower = 0
        for i in 0..<40 {
            let simulated = population.simulate(user: i)
            let (truth, context) = (simulated.truth, simulated.history.context)
            let entered = zip(context, context.dropFirst()).filter { $0.0.lowPower != true && $0.1.lowPower == true }
                .map(\.1)
            if truth.lowPowerThreshold == nil {
                #expect(context.allSatisfy { $0.lowPower != true })
            } else {
                #expect(entered.allSatisfy { ($0.battery ?? 0) <= truth.lowPowerThreshold! + 1 })
                if !entered.isEmpty { withLowPower += 1 }
            }
            #expect(context.allSatisfy { (1...100).contains($0.battery ?? -1) })
        }
        #expect(withLowPower >= 1)
    }

    @Test func networkIsWifiAtHomeAtNightCellularSometimesNoneRarely() {
        var counts: [NetworkType: Int] = [:]
        var nightWifi = 0
        var night = 0
        for i in 0..<40 {
            for c in population.simulate(user: i).history.context {
                counts[c.network ?? NetworkType.none, default: 0] += 1
                let hour = Int(Personas.local(c.utc, c.offset).minute) / 60
                if hour >= 1 && hour < 5 {
                    night += 1
                    if c.network == .wifi { nightWifi += 1 }
                }
            }
        }
        let total = counts.values.reduce(0, +)
        #expect(Double(nightWifi) / Double(night) > 0.97)
        #expect(Double(counts[.cellular] ?? 0) / Double(total) > 0.05)
        #expect((counts[.none] ?? 0) > 0)
        #expect(Double(counts[.none] ?? 0) / Double(total) < 0.05)
    }

    @Test func forceQuitsAreAboutTheirShareOfSessionEnds() {
        var ends = 0
        var forced = 0
        for i in 0..<40 {
            for e in population.simulate(user: i).history.allEvents {
                if e.kind == .close || e.kind == .forceQuit { ends += 1 }
                if e.kind == .forceQuit { forced += 1 }
            }
        }
        let share = Double(forced) / Double(ends)
        #expect((0.02...0.04).contains(share))
    }
}

@Suite struct ContentProcessTests {
    let days = 28

    func updates(_ app: String) -> [(utc: Int, offset: Int)] {
        let i = AppCatalog.apps.firstIndex { $0.name == app }!
        return ContentSimulator.updates(
            AppCatalog.apps[i].content, startDay: Personas.start, days: days, seed: 3, stream: i)
    }

    @Test func ratesMatchTheirParameters() {
        for app in AppCatalog.apps where app.content.expectedPerDay >= 1 {
            // Within 3 Poisson standard deviations, and within 10% for the busy ones.
            let count = Double(updates(app.name).count)
            let expected = app.content.expectedPerDay * Double(days)
            #expect(abs(count - expected) < 3 * expected.squareRoot(), "\(app.name): \(count) vs \(expected)")
            if expected > 500 { #expect(abs(count / expected - 1) < 0.1, "\(app.name)") }
        }
    }

    @Test func newsEvery20To40MinutesInTheDay() {
        let news = updates("com.example.news")
        let gaps = zip(news, news.dropFirst()).compactMap { a, b -> Double? in
            let m = Personas.local(a.utc, a.offset).minute
            return m >= 360 && m < 1380 ? Double(b.utc - a.utc) / 60 : nil
        }
        #expect(gaps.count > 500)
        #expect(gaps.allSatisfy { $0 >= 20 && $0 <= 40 })
    }

    @Test func theDigestIsDailyAt0600LondonTimeAndWeatherHourly() {
        let digest = updates("com.example.digest")
        #expect(digest.count == days)
        #expect(digest.allSatisfy { Personas.local($0.utc, $0.offset).minute == 360 })
        // London moves to summer time on 2024-03-31: 06:00 is 06:00Z before, 05:00Z after.
        #expect(Set(digest.map { $0.offset }) == [0, 3600])
        let weather = updates("com.example.weather")
        #expect(weather.count == 24 * days)
        #expect(weather.allSatisfy { $0.utc % 3600 == 0 })
    }

    @Test func rareAppsAreRare() {
        #expect(updates("com.example.maps").count <= 12)
        #expect(updates("com.example.game").count == 4)  // weekly
    }
}

@Suite struct GeneratorOutputTests {
    /// Chunking (the unit of parallel work) changes gzip members, never the logs.
    @Test func chunkSizeDoesNotChangeTheLogs() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("fl-gen-\(getpid())")
        defer { try? FileManager.default.removeItem(at: base) }
        var texts: [[String]] = []
        for chunk in [64, 3] {
            var options = GenerateOptions(users: 10, days: 5, seed: 2, startDay: Personas.start)
            options.usersPerChunk = chunk
            let out = base.appendingPathComponent("c\(chunk)").path
            let summary = try PopulationWriter(generator: Generator(options: options)).write(to: out)
            #expect(summary.users == 10)
            var files: [String] = []
            for name in ["usage.csv.gz", "context.csv.gz", "content.csv.gz"] {
                let r = try run("/bin/sh", ["-c", "gzip -dc '\(out)/\(name)'"])
                #expect(r.status == 0)
                files.append(r.out)
            }
            files.append(try String(contentsOfFile: out + "/truth.json", encoding: .utf8))
            texts.append(files)
        }
        #expect(texts[0] == texts[1])
        #expect(texts[0][0].hasPrefix("timestamp,user,app,event\n"))
        #expect(texts[0][0].components(separatedBy: "timestamp,").count == 2)  // one header
        let truth = try JSONSerialization.jsonObject(with: Data(texts[0][3].utf8)) as? [String: Any]
        #expect((truth?["users"] as? [Any])?.count == 10)
    }

    @Test func invalidOptionsAreRefused() {
        #expect(throws: SynthError.self) {
            try Generator(options: GenerateOptions(users: 0, days: 5, seed: 1, startDay: 0))
        }
        var options = GenerateOptions(users: 1, days: 5, seed: 1, startDay: 0)
        options.config.appsPerUser = .init(5, 2)
        let error = #expect(throws: SynthError.self) { try Generator(options: options) }
        #expect(error?.message.contains("appsPerUser") == true)
    }

    @Test func timestampsAreWrittenInTheLocalTimeOfTheirOffset() {
        var out: [UInt8] = []
        ISOTimestamp.append(Instant(secondsSince1970: 1_711_846_800), offset: 7200, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "2024-03-31T03:00:00+02:00")
        out.removeAll()
        ISOTimestamp.append(Instant(secondsSince1970: 1_711_846_800), offset: -19_800, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "2024-03-30T19:30:00-05:30")
        out.removeAll()
        ISOTimestamp.append(Instant(secondsSince1970: -1), offset: nil, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "1969-12-31T23:59:59Z")
    }
}
