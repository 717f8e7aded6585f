import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabIngest

/// Exports with a split date and time, day-first or month-first dates, 12-hour clocks and
/// durations instead of close events (`--map COLUMN=date|time|duration`, `--date-format`).
@Suite struct DateLayoutTests {
    func instant(_ text: String, _ layout: String, zone: String? = nil) throws -> ParsedTimestamp {
        var parser = TimestampParser(timeZone: zone.flatMap(TimeZone.init(identifier:)))
        parser.layout = try DateLayout(layout)
        return try parser.parse(text)
    }

    func utc(_ iso: String) throws -> Instant {
        var parser = TimestampParser()
        return try parser.parse(iso).time
    }

    @Test func dayFirstAndMonthFirstReadTheSameTextDifferently() throws {
        #expect(try instant("03/04/2024 10:15", "%d/%m/%Y %H:%M").time == (try utc("2024-04-03T10:15:00Z")))
        #expect(try instant("03/04/2024 10:15", "%m/%d/%Y %H:%M").time == (try utc("2024-03-04T10:15:00Z")))
        // One-digit fields, two-digit years (POSIX: 69–99 are 19xx).
        #expect(try instant("3/4/24 9:05", "%d/%m/%y %H:%M").time == (try utc("2024-04-03T09:05:00Z")))
        #expect(try instant("3/4/99 9:05", "%d/%m/%y %H:%M").time == (try utc("1999-04-03T09:05:00Z")))
    }

    @Test func twelveHourClocks() throws {
        let layout = "%m/%d/%Y %I:%M %p"
        #expect(try instant("04/03/2024 12:00 AM", layout).time == (try utc("2024-04-03T00:00:00Z")))
        #expect(try instant("04/03/2024 12:30 pm", layout).time == (try utc("2024-04-03T12:30:00Z")))
        #expect(try instant("04/03/2024 1:05 p.m.", layout).time == (try utc("2024-04-03T13:05:00Z")))
        #expect(try instant("04/03/2024 11:59 PM", layout).time == (try utc("2024-04-03T23:59:00Z")))
    }

    @Test func monthNamesFractionsAndOffsets() throws {
        #expect(
            try instant("3 April 2024 10:15:30.25", "%d %B %Y %H:%M:%S.%f").time
                == (try utc("2024-04-03T10:15:30.25Z")))
        let zoned = try instant("03.04.2024 10:15 +02:00", "%d.%m.%Y %H:%M %z")
        #expect(zoned.time == (try utc("2024-04-03T08:15:00Z")))
        #expect(zoned.utcOffsetSeconds == 7_200)
    }

    @Test func localTimesFollowTheZoneAndRejectItsGaps() throws {
        let summer = try instant("01/04/2024 12:00", "%d/%m/%Y %H:%M", zone: "Europe/Berlin")
        #expect(summer.utcOffsetSeconds == 7_200)
        let winter = try instant("30/03/2024 12:00", "%d/%m/%Y %H:%M", zone: "Europe/Berlin")
        #expect(winter.utcOffsetSeconds == 3_600)
        #expect(throws: TimestampError.self) {
            try instant("31/03/2024 02:30", "%d/%m/%Y %H:%M", zone: "Europe/Berlin")
        }
    }

    @Test func textNotMatchingTheLayoutIsAnErrorNamingIt() throws {
        for text in ["2024-04-03 10:15", "31/02/2024 10:15", "03/04/2024 25:00", "03/04/2024 10:15 extra"] {
            let error = #expect(throws: TimestampError.self) { try instant(text, "%d/%m/%Y %H:%M") }
            #expect(error?.message.contains("does not match --date-format \"%d/%m/%Y %H:%M\"") == true, "\(text)")
        }
    }

    @Test func badLayoutsAreRefusedWithTheReason() {
        #expect((try? DateLayout("%d/%m/%Y %Q")) == nil)
        #expect(throws: TimestampError.self) { try DateLayout("%H:%M") }
        #expect(throws: TimestampError.self) { try DateLayout("%d/%m/%Y %I:%M") }
        let error = #expect(throws: TimestampError.self) { try DateLayout("%d/%m/%Y %Q") }
        #expect(error?.message.contains("unknown directive %Q") == true)
    }
}

@Suite struct SplitTimestampAndDurationTests {
    let export = """
        Date,Time,Person,App,Length
        03/04/2024,10:15 PM,ann,com.news,83
        13/04/2024,9:05 AM,ann,com.mail,1:30
        13/04/2024,9:10 AM,bob,com.mail,

        """

    @Test func aSplitTimestampIsReadAsOneAndADurationClosesTheUse() throws {
        let r = try read(export) {
            $0.columnMap = ["Date": "date", "Time": "time", "Person": "user", "Length": "duration"]
            $0.dateLayout = try? DateLayout("%d/%m/%Y %I:%M %p")
            $0.timeZone = TimeZone(identifier: "Europe/Berlin")
        }
        #expect(r.rejects.isEmpty, "\(r.rejects)")
        #expect(r.usage.map(\.kind) == [.launch, .close, .launch, .close, .launch])
        let start = try #require(r.usage.first)
        var parser = TimestampParser()
        #expect(start.time == (try parser.parse("2024-04-03T20:15:00Z")).time)
        #expect(start.utcOffset == 7_200)
        #expect(r.usage[1].time - start.time == .seconds(83))
        #expect(r.usage[3].time - r.usage[2].time == .seconds(90))
        // Five records from three rows: the two closes are derived, not rows of their own.
        #expect(r.counts.rows == 3 && r.counts.derived == 2 && r.counts.accepted == 5)
    }

    @Test func durationsInEveryWrittenFormAndTheBadOnes() throws {
        var text = "timestamp,user,app,duration\n"
        let good = ["83", "83.5", "1500ms", "83s", "12m", "12 min", "2h", "1:23", "0:01:23"]
        // "²:30": a digit to Unicode but not to Double (it used to crash the import).
        let bad = ["soon", "-5", "25h", "1:x", "1:2:3:4", "²:30", "1:nan", "١:30"]
        for d in good + bad { text += "2024-04-03T10:00:00Z,u,com.app,\(d)\n" }
        let r = try read(text) { $0.columnMap = ["duration": "duration"] }
        let closes = r.usage.filter { $0.kind == .close }.map { $0.time - r.usage[0].time }
        #expect(
            closes == [
                .seconds(83), 83_500_000, 1_500_000, .seconds(83), .minutes(12), .minutes(12),
                .hours(2), .seconds(83), .seconds(83),
            ])
        #expect(r.rejects.map(\.line) == Array(11...18))
        #expect(r.rejects[5...].allSatisfy { $0.reason.contains("not seconds") }, "\(r.rejects)")
        #expect(r.rejects[1].reason.contains("negative"))
        #expect(r.rejects[2].reason.contains("longer than a day"))
        #expect(r.rejects[0].reason.contains("not seconds"))
    }

    /// Hostile clocks in a duration column (Unicode digits, empty parts, seconds past 59): each is
    /// a reject with its reason, never a crash, and no record.
    @Test func hostileClockDurationsAreRejectsWithAReason() throws {
        var text = "timestamp,user,app,duration\n"
        let hostile = ["²:30", "1:", ":30", "1:99", "١:٣٠", "²", "1:3e1", "-1:30"]
        for d in hostile { text += "2024-04-03T10:00:00Z,u,com.app,\(d)\n" }
        let r = try read(text) { $0.columnMap = ["duration": "duration"] }
        #expect(r.usage.isEmpty)
        #expect(r.rejects.map(\.line) == Array(2...9))
        for i in [0, 1, 2, 4, 5, 6] {
            #expect(r.rejects[i].reason.contains("not seconds"), "\(r.rejects[i])")
        }
        #expect(r.rejects[3].reason.contains("\"1:99\" is not a clock"), "\(r.rejects[3])")
        #expect(r.rejects[7].reason.contains("negative"), "\(r.rejects[7])")
    }

    /// The duration column reads what the command line's durations read (one parser, in Core):
    /// a combination of units, days, blanks before a unit, upper case, a clock's fraction.
    @Test func durationsAreReadByTheCommandLinesParser() throws {
        var text = "timestamp,user,app,duration\n"
        for d in ["1h30m", "1h 30m", "90 S", "1d", "1:30.5"] { text += "2024-04-03T10:00:00Z,u,com.app,\(d)\n" }
        let r = try read(text) { $0.columnMap = ["duration": "duration"] }
        #expect(r.rejects.isEmpty, "\(r.rejects)")
        let closes = r.usage.filter { $0.kind == .close }.map { $0.time - r.usage[0].time }
        #expect(closes == [.minutes(90), .minutes(90), .seconds(90), .days(1), 90_500_000])
    }

    @Test func aSplitHeaderWithoutMapsFailsNamingTheOption() throws {
        let message = readError(export)
        #expect(message.contains("log.csv:1:"), "\(message)")
        #expect(message.contains("--map Date=date --map Time=time"), "\(message)")
    }

    @Test func aTimeColumnWithoutItsDateIsAUsageError() throws {
        let message = readError(export) { $0.columnMap = ["Time": "time", "Person": "user"] }
        #expect(message.contains("name its date column"), "\(message)")
    }

    @Test func slashDatesWithoutALayoutAreRejectedWithAHint() throws {
        let r = try read(export) { $0.columnMap = ["Date": "date", "Time": "time", "Person": "user"] }
        #expect(r.rejects.count == 3)
        #expect(
            r.rejects[0].reason.hasSuffix(
                "--date-format \"%d/%m/%Y %I:%M %p\" (\"%m/%d/%Y %I:%M %p\" for month-first dates)"),
            "\(r.rejects[0].reason)")
        // 13/04 can only be day-first: no other layout offered.
        #expect(r.rejects[1].reason.hasSuffix("--date-format \"%d/%m/%Y %I:%M %p\""), "\(r.rejects[1].reason)")
        #expect(r.rejects[2].reason.hasSuffix("--date-format \"%d/%m/%Y %I:%M %p\""), "\(r.rejects[2].reason)")
    }

    @Test func aSplitTimestampWithAnEmptyTimeIsARejectNamingIt() throws {
        let r = try read("Date,Time,user,app\n2024-04-03,10:15,u,com.a\n2024-04-03,,u,com.b\n") {
            $0.columnMap = ["Date": "date", "Time": "time"]
        }
        #expect(r.usage.count == 1)
        #expect(r.rejects.map(\.line) == [3])
        #expect(r.rejects.first?.reason == "empty time", "\(r.rejects)")
    }

    @Test func aDurationOnAFileThatIsNotAUsageLogIsRefused() throws {
        let context = "timestamp,user,battery,Length\n2024-04-03T10:00:00Z,u,80,60\n"
        let message = readError(context) { $0.columnMap = ["Length": "duration"] }
        #expect(message.contains("log.csv:1:"), "\(message)")
        #expect(message.contains("duration") && message.contains("not to a context file"), "\(message)")
        // The same column on a usage log closes the use.
        let usage = try read("timestamp,user,app,Length\n2024-04-03T10:00:00Z,u,com.a,60\n") {
            $0.columnMap = ["Length": "duration"]
        }
        #expect(usage.usage.map(\.kind) == [.launch, .close])
    }

    @Test func aDateColumnAloneIsTheTimestamp() throws {
        let r = try read("Date,user,app\n03/04/2024 10:15,u,com.app\n") {
            $0.columnMap = ["Date": "date"]
            $0.dateLayout = try? DateLayout("%d/%m/%Y %H:%M")
        }
        var parser = TimestampParser()
        #expect(r.usage.map(\.time) == [try parser.parse("2024-04-03T10:15:00Z").time])
    }
}
