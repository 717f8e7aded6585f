import FetchLabCore
import FetchLabResults
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabIngest

/// Everything a reader produced from one file.
struct ReadResult {
    var format: LogFormat
    var usage: [UsageEvent] = []
    var content: [ContentUpdate] = []
    var context: [ContextRow] = []
    var rejects: [RejectedRow] = []
    var counts = ReadCounts()
    var users: [String] = []
    var apps: [String] = []

    /// The app names of the usage events, in order.
    var usageApps: [String] { usage.map { apps[Int($0.app)] } }
}

/// Writes `text` to a file named `name` and reads all of it.
func read(
    _ text: String, name: String = "log.csv", _ configure: (inout ReadOptions) -> Void = { _ in }
) throws -> ReadResult {
    let dir = TemporaryDirectory()
    var options = ReadOptions()
    configure(&options)
    let reader = try LogReader(path: try dir.write(name, text), options: options)
    var result = ReadResult(format: reader.format)
    while let batch = try reader.nextBatch() {
        result.usage += batch.usage
        result.content += batch.content
        result.context += batch.context
        result.rejects += batch.rejects
        result.counts += batch.counts
        result.users += batch.newUsers
        result.apps += batch.newApps
    }
    return result
}

/// The one-line message of the error reading `text` fails with.
func readError(
    _ text: String, name: String = "log.csv", _ configure: (inout ReadOptions) -> Void = { _ in }
) -> String {
    do {
        let result = try read(text, name: name, configure)
        Issue.record("read as \(result.format) without an error")
        return ""
    } catch {
        return "\(error)"
    }
}

@Suite struct ColumnMapTests {
    /// `--map Time=timestamp` beside a `Date` column: the mapping wins over the `date` alias.
    @Test func explicitMappingWinsOverABuiltInAlias() throws {
        let text = "Date,Time,user,app\n2024-03-01,2024-03-01T12:00:00Z,u1,com.a\n"
        let mapped = try read(text) { $0.columnMap = ["Time": "timestamp"] }
        #expect(mapped.rejects.map(\.reason) == [])
        #expect(mapped.usage.map(\.time) == [Instant(secondsSince1970: 1_709_294_400)])
        // Without a mapping, separate Date and Time columns fail at the header naming the maps.
        #expect(readError(text).contains("--map Date=date --map Time=time"))
    }

    @Test func aMappedColumnIsNotAlsoReadAsItsOwnName() throws {
        // `user` is mapped away to app; the `device` column (an alias of user) is the user.
        let result = try read("timestamp,device,user\n2024-03-01T12:00:00Z,phone,com.a\n") {
            $0.columnMap = ["user": "app"]
        }
        #expect(result.users == ["phone"])
        #expect(result.usageApps == ["com.a"])
    }

    @Test func explicitMappingWinsInDatasetFormatsToo() throws {
        // An LSApp file with a second time column mapped to the timestamp.
        let text =
            "user_id\tsession_id\ttimestamp\tlocal\tapp_name\tevent_type\n"
            + "1\t1\tbogus\t2018-01-16 06:01:05\tGmail\tOpened\n"
        let result = try read(text, name: "l.tsv") { $0.columnMap = ["local": "timestamp"] }
        #expect(result.format == .lsapp)
        #expect(result.usage.count == 1)
    }
}

@Suite struct DetectionTests {
    @Test(arguments: [
        ("timestamp,app\n2024-03-01T12:00:00Z,com.a\n", [UsageEventKind.launch]),
        (
            "time,package,event\n2024-03-01T12:00:00Z,com.a,launch\n2024-03-01T12:05:00Z,com.a,close\n",
            [.launch, .close]
        ),
        ("{\"ts\": 1709294400, \"app\": \"com.a\"}\n", [.launch]),
    ])
    func aStatedUserAndALaunchLikeHeaderAreUsageEvents(text: String, kinds: [UsageEventKind]) throws {
        let result = try read(text) { $0.user = "pat" }
        #expect(result.format == .usage)
        #expect(result.users == ["pat"])
        #expect(result.usage.map(\.kind) == kinds)
        #expect(result.content.isEmpty)
    }

    @Test func withoutAUserTimestampAndAppAreContentUpdates() throws {
        let result = try read("timestamp,app\n2024-03-01T12:00:00Z,com.a\n")
        #expect(result.format == .content)
        #expect(result.content.count == 1)
    }

    @Test func aStatedUserMakesAContextHeaderWithoutUserReadable() throws {
        let result = try read("timestamp,battery\n2024-03-01T12:00:00Z,80\n") { $0.user = "pat" }
        #expect(result.format == .context)
        #expect(result.context.map(\.sample.battery) == [80])
    }

    @Test func anEventColumnWithoutAUserIsAnErrorNamingWhatToState() {
        let message = readError("time,package,event\n2024-03-01T12:00:00Z,com.a,launch\n")
        #expect(message.contains(":1: header \"time,package,event\""), "\(message)")
        #expect(message.contains("--user NAME") && message.contains("--input-format content"), "\(message)")
        #expect(!message.contains("\n"))
    }

    @Test func aHeaderFittingTwoFormatsIsAnErrorNamingInputFormat() throws {
        let text = "timestamp,user,app,battery\n2024-03-01T12:00:00Z,u1,com.a,80\n"
        let message = readError(text)
        #expect(message.contains("could be usage or context data"), "\(message)")
        #expect(message.contains("--input-format usage|context"), "\(message)")
        #expect(!message.contains("\n"))
        // Stating the format settles it.
        #expect(try read(text) { $0.format = .context }.context.count == 1)
        #expect(try read(text) { $0.format = .usage }.usage.count == 1)
    }

    @Test func datasetSignaturesWinOverGenericFits() throws {
        // LSApp's header also fits FetchLab usage events (user_id, app_name, event_type are aliases).
        let lsapp = try read(
            "user_id\tsession_id\ttimestamp\tapp_name\tevent_type\n1\t1\t2018-01-16 06:01:05\tGmail\tOpened\n")
        #expect(lsapp.format == .lsapp)
        let battery = try read("ID,level,status,Timestamp\ndev1,80,2,1596974946939\n") { $0.user = "pat" }
        #expect(battery.format == .battery)
        #expect(battery.users == ["pat"])
    }

    @Test func missingColumnsAreNamedWithTheFixes() {
        let message = readError("timestamp,app\n2024-03-01T12:00:00Z,com.a\n") { $0.format = .usage }
        #expect(message.contains("usage header \"timestamp,app\" lacks user"), "\(message)")
        #expect(message.contains("--map COLUMN=FIELD") && message.contains("--user NAME"), "\(message)")
        let battery = readError("ID,level,status\ndev1,80,2\n") { $0.format = .battery }
        #expect(battery.contains("lacks Timestamp"), "\(battery)")
        #expect(!battery.contains("--user"), "\(battery)")
    }
}

@Suite struct MessageTests {
    /// Every message that names an option names one the CLI has, and its parentheses close.
    @Test(arguments: [
        "foo,bar\n1,2\n", "timestamp,foo\n2024-03-01T12:00:00Z,1\n", "time,package,event\nx,y,z\n",
        "timestamp,battery\nx,1\n", "timestamp,user,app,level\nx,u,a,1\n",
    ])
    func headerErrorsNameRealOptions(text: String) {
        let message = readError(text)
        let options = Set(message.matches(of: /--[a-z-]+/).map { String($0.output) })
        #expect(!options.isEmpty, "\(message)")
        #expect(options.isSubset(of: ["--map", "--input-format", "--user"]), "\(message)")
        #expect(message.filter { $0 == "(" }.count == message.filter { $0 == ")" }.count, "\(message)")
        #expect(!message.contains("\n"))
    }

    @Test func outOfOrderNamesTheWindowAsADuration() throws {
        let result = try read(
            "2023-12-19 13:00:00,com.a\n2023-12-19 11:00:00,com.b\n", name: "fg.csv"
        ) {
            $0.reorderWindow = 90 * .perMinute
        }
        #expect(result.rejects.map(\.reason) == ["out of order by more than 1h30m (raise --reorder-window)"])
    }

    @Test func theTimestampRangeIsNamedAsDates() throws {
        let result = try read("timestamp,user,app\n1999-12-31T23:59:59Z,u,com.a\n")
        #expect(
            result.rejects.map(\.reason) == [
                "timestamp \"1999-12-31T23:59:59Z\" is outside 2000-01-01..2100-01-01; "
                    + "change the range with --earliest/--latest"
            ])
        #expect(result.counts.placeholders == 0)
    }

    /// A 1970 timestamp (epoch 0, or a zone away from it) is a placeholder: rejected with a reason
    /// that says so and counted, not a hint to widen the range.
    @Test func placeholderTimestampsAreNamedAsSuch() throws {
        let result = try read(
            "timestamp,user,app\n1970-01-01T00:00:00Z,u,com.a\n1970-01-01 01:00:00,u,com.a\n0,u,com.a\n"
                + "2024-03-01T12:00:00Z,u,com.a\n")
        #expect(result.usage.count == 1)
        #expect(result.counts.rejected == 3 && result.counts.placeholders == 3)
        #expect(
            result.rejects.first?.reason
                == "timestamp \"1970-01-01T00:00:00Z\" is a placeholder (epoch 0, 1970-01-01): rejected; nothing to change unless it is real"
        )
        #expect(result.rejects.allSatisfy { !$0.reason.contains("--earliest") })
        // Accepted when the range says 1970 is real.
        let widened = try read("timestamp,user,app\n1970-01-01T00:00:00Z,u,com.a\n") { $0.earliest = -1 }
        #expect(widened.usage.count == 1 && widened.counts.placeholders == 0)
        // Milliseconds read as microseconds land weeks into 1970: a unit to change, not a placeholder.
        let unit = try read("timestamp,user,app\n1709294400000,u,com.a\n") { $0.epochUnit = .microseconds }
        #expect(unit.counts.placeholders == 0)
        #expect(unit.rejects.first?.reason.contains("change the range with --earliest/--latest") == true)
    }
}

@Suite struct OptionDefaultTests {
    @Test func defaultsAreTheDocumentedOnes() throws {
        let options = ReadOptions()
        var parser = TimestampParser()
        #expect(options.sessionGap == 5 * .perMinute)
        #expect(options.reorderWindow == .perHour)
        #expect(options.earliest == (try parser.parse("2000-01-01T00:00:00Z")).time)
        #expect(options.latest == (try parser.parse("2100-01-01T00:00:00Z")).time)
    }
}

/// A carriage return inside a quoted field is kept: a field spanning lines keeps the file's own
/// line break (`\r\n` in a CRLF file, `\n` in an LF file), and a lone CR in a field stays.
@Suite struct QuotedLineBreakTests {
    @Test func aCRLFInsideAQuotedFieldIsKept() throws {
        let crlf = try read(
            "timestamp,user,app\r\n2024-03-01T12:00:00Z,u,\"first\r\nsecond\"\r\n2024-03-01T12:05:00Z,u,b\r\n")
        #expect(crlf.rejects.isEmpty, "\(crlf.rejects)")
        #expect(crlf.usageApps == ["first\r\nsecond", "b"])
        let lf = try read("timestamp,user,app\n2024-03-01T12:00:00Z,u,\"first\nsecond\"\n")
        #expect(lf.usageApps == ["first\nsecond"])
        let lone = try read("timestamp,user,app\n2024-03-01T12:00:00Z,u,\"a\rb\"\n")
        #expect(lone.usageApps == ["a\rb"])
    }
}
