import FetchLabCore
import Testing
import _FetchLabTestSupport

@Suite struct CivilDateTests {
    @Test(arguments: Array(stride(from: -800_000, to: 800_000, by: 997)))
    func daysRoundTrip(day: Int) {
        let date = CivilDate(daysSince1970: day)
        #expect(date.daysSince1970 == day)
        #expect((1...12).contains(date.month))
        #expect((1...CivilDate.daysInMonth(year: date.year, month: date.month)).contains(date.day))
    }

    @Test func knownDates() {
        #expect(CivilDate(year: 1970, month: 1, day: 1).daysSince1970 == 0)
        #expect(CivilDate(year: 2000, month: 3, day: 1).daysSince1970 == 11_017)
        #expect(CivilDate(daysSince1970: -1) == CivilDate(year: 1969, month: 12, day: 31))
        #expect(CivilDate(year: 2024, month: 2, day: 29).description == "2024-02-29")
        #expect(CivilDate(year: 987, month: 6, day: 5).description == "0987-06-05")
    }

    @Test func parsesOnlyRealDates() {
        #expect(CivilDate("2024-02-29") == CivilDate(year: 2024, month: 2, day: 29))
        #expect(CivilDate("2023-02-29") == nil)
        #expect(CivilDate("1900-02-29") == nil)
        #expect(CivilDate("2000-02-29") != nil)
        #expect(CivilDate("2024-13-01") == nil)
        #expect(CivilDate("2024-1-01") == nil)
        #expect(CivilDate("20240101") == nil)
        #expect(CivilDate("") == nil)
    }
}

@Suite struct LocalCalendarTests {
    @Test func weekdaysAndWeekends() {
        #expect(LocalCalendar.weekday(0) == 5)  // 1970-01-01, a Thursday
        let monday = CivilDate(year: 2024, month: 3, day: 4).daysSince1970
        #expect(LocalCalendar.weekday(monday) == 2)
        #expect(!LocalCalendar.isWeekend(monday))
        #expect(LocalCalendar.isWeekend(monday + 5))
        #expect(LocalCalendar.isWeekend(monday + 6))
        #expect(LocalCalendar.weekday(-1) == 4)  // before 1970 too
        #expect(LocalCalendar.isWeekend(-5))  // 1969-12-27, a Saturday
    }

    @Test func localDaysFollowTheOffset() {
        // 2024-03-31T23:30:00Z is already April 1st in Berlin (+02:00) and still March 31st in New York.
        let t =
            Instant(secondsSince1970: Int64(CivilDate(year: 2024, month: 3, day: 31).daysSince1970) * Seconds.perDay)
            + .hours(23) + .minutes(30)
        let april1 = CivilDate(year: 2024, month: 4, day: 1).daysSince1970
        #expect(LocalCalendar.day(t, offset: 7200) == april1)
        #expect(LocalCalendar.day(t, offset: -14_400) == april1 - 1)
        #expect(LocalCalendar.midnight(after: t, offset: 7200) == LocalCalendar.midnight(of: april1 + 1, offset: 7200))
        #expect(
            LocalCalendar.midnight(of: april1, offset: 7200) == t - (Microseconds.hours(23) + .minutes(30) + .hours(2))
                + .days(1))
        #expect(LocalCalendar.day(-1, offset: 0) == -1)
        #expect(Microseconds(-1).wholeSeconds == -1)
    }
}

@Suite struct QuantityTests {
    @Test func durations() {
        #expect(Quantity.duration("10m") == .minutes(10))
        #expect(Quantity.duration("90s") == .seconds(90))
        #expect(Quantity.duration("1.5h") == .minutes(90))
        #expect(Quantity.duration("1h30m") == .minutes(90))
        #expect(Quantity.duration("7d") == .days(7))
        #expect(Quantity.duration("2w") == .days(14))
        #expect(Quantity.duration("250ms") == 250_000)
        #expect(Quantity.duration("5min") == .minutes(5))
        #expect(Quantity.duration("600") == .minutes(10))
        #expect(Quantity.duration(" 5m ") == .minutes(5))
        for bad in ["", "m", "5x", "-5m", "5m3", "1e400", "h1", "5 m"] {
            #expect(Quantity.duration(bad) == nil, "\(bad)")
        }
    }

    /// The one duration parser says why a text is not a duration, and reads a clock or blanks
    /// before a unit only when its caller asks (the usage format's `--map X=duration` column).
    @Test func parseDurationSaysWhyAndReadsClocksWhenAsked() throws {
        #expect(try Quantity.parseDuration("1:30", forms: .clock) == .seconds(90))
        #expect(try Quantity.parseDuration("0:01:23.5", forms: .clock) == 83_500_000)
        #expect(try Quantity.parseDuration("12 min", forms: .spacedUnits) == .minutes(12))
        #expect(try Quantity.parseDuration("1h 30m", forms: .spacedUnits) == .minutes(90))
        #expect(throws: DurationProblem.notADuration) { try Quantity.parseDuration("1:30") }
        // Unicode digits ("²", Arabic-Indic "١٣٠"), empty parts, numbers Double reads but a clock
        // does not: a reason, never a crash.
        let hostile = ["²:30", "1:", ":30", "١:٣٠", "١:30", "1:2:3:4", "1:x", "1:nan", "1:3e1", "1:-5", "1.5:30", ":"]
        for hostile in hostile {
            #expect(throws: DurationProblem.notADuration, "\(hostile)") {
                try Quantity.parseDuration(hostile, forms: .clock)
            }
        }
        #expect(throws: DurationProblem.clockOutOfRange) { try Quantity.parseDuration("1:99", forms: .clock) }
        #expect(throws: DurationProblem.clockOutOfRange) { try Quantity.parseDuration("1:60:00", forms: .clock) }
        #expect(throws: DurationProblem.negative) { try Quantity.parseDuration("-5m") }
        #expect(throws: DurationProblem.negative) { try Quantity.parseDuration("-5") }
        #expect(throws: DurationProblem.negative) { try Quantity.parseDuration("-1:30", forms: .clock) }
        #expect(throws: DurationProblem.tooLong) { try Quantity.parseDuration("1e13") }
        #expect(throws: DurationProblem.tooLong) { try Quantity.parseDuration("10000000w") }
    }

    @Test func durationsPrintBack() {
        for text in ["45s", "10m", "1h30m", "2d", "1d6h", "0s"] {
            #expect(Quantity.format(duration: Quantity.duration(text)!) == text)
        }
    }

    @Test func byteSizes() {
        #expect(Quantity.bytes("500M") == 500_000_000)
        #expect(Quantity.bytes("50G") == 50_000_000_000)
        #expect(Quantity.bytes("50GB") == 50_000_000_000)
        #expect(Quantity.bytes("2GiB") == 2_147_483_648)
        #expect(Quantity.bytes("1.5k") == 1500)
        #expect(Quantity.bytes("4096") == 4096)
        for bad in ["", "0", "-5M", "5X", "M", "1e30T"] {
            #expect(Quantity.bytes(bad) == nil, "\(bad)")
        }
    }
}

@Suite struct UserHistoryTests {
    let history = UserHistory(
        user: "u", apps: ["a", "b", "c"],
        launches: [
            UsageEvent(time: .minutes(30), offset: 3600, app: 2),
            UsageEvent(time: .minutes(10), offset: 3600, app: 1),
        ],
        events: [UsageEvent(time: .minutes(10), offset: 3600, app: 1, kind: .close)],
        context: [ContextSample(time: .minutes(5), battery: 80), ContextSample(time: .minutes(40), battery: 70)],
        contentUpdates: [ContentUpdate(time: .minutes(1), app: 0), ContentUpdate(time: .minutes(2), app: 1)])

    @Test func keepsEverythingInTimeOrder() {
        #expect(history.launches.map(\.time) == [.minutes(10), .minutes(30)])
        #expect(history.allEvents.map(\.kind) == [.launch, .close, .launch])
        #expect(history.lastOffset == 3600)
        #expect(history.index(of: "c") == 2)
        #expect(history.index(of: "z") == nil)
    }

    @Test func beforeAnOriginSeesOnlyThePastAndTheAppsItUsed() {
        let past = history.before(.minutes(20))
        #expect(past.apps == ["b"])
        #expect(past.launches == [UsageEvent(time: .minutes(10), offset: 3600, app: 0)])
        #expect(past.events.map(\.kind) == [.close])
        #expect(past.context.map(\.time) == [.minutes(5)])
        // App "a" was never launched before the origin: its update is not the user's yet.
        #expect(past.contentUpdates == [ContentUpdate(time: .minutes(2), app: 0)])
    }
}
