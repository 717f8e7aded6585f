import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabIngest

@Suite("TimestampParser")
struct TimestampParserTests {
    /// 2023-12-19T13:09:55Z
    static let base: Int64 = 1_702_991_395
    static let µs: Int64 = 1_000_000

    private func parse(
        _ text: String, zone: String? = nil, unit: EpochUnit = .auto
    ) throws -> ParsedTimestamp {
        var parser = TimestampParser(timeZone: zone.flatMap { TimeZone(identifier: $0) }, epochUnit: unit)
        return try parser.parse(text)
    }

    private func errorMessage(_ text: String, zone: String? = nil, unit: EpochUnit = .auto) -> String? {
        var parser = TimestampParser(timeZone: zone.flatMap { TimeZone(identifier: $0) }, epochUnit: unit)
        do {
            let value = try parser.parse(text)
            Issue.record("\(text) parsed as \(value)")
            return nil
        } catch {
            return error.message
        }
    }

    // MARK: ISO-8601 with offset

    @Test(
        "ISO-8601 with Z and numeric offsets",
        arguments: [
            ("2023-12-19T13:09:55Z", base * µs, Int32(0)),
            ("2023-12-19T13:09:55z", base * µs, 0),
            ("2023-12-19 13:09:55Z", base * µs, 0),
            ("2023-12-19t13:09:55Z", base * µs, 0),
            ("2023-12-19T13:09:55.131Z", base * µs + 131_000, 0),
            ("2023-12-19T13:09:55,5Z", base * µs + 500_000, 0),
            ("2023-12-19T13:09:55.123456789Z", base * µs + 123_456, 0),
            ("2023-12-19T13:09:55.000001Z", base * µs + 1, 0),
            ("2023-12-19T14:09:55+01:00", base * µs, 3_600),
            ("2023-12-19T14:09:55+0100", base * µs, 3_600),
            ("2023-12-19T14:09:55+01", base * µs, 3_600),
            ("2023-12-19T07:39:55-05:30", base * µs, -19_800),
            ("2023-12-19T07:39:55.25-0530", base * µs + 250_000, -19_800),
            ("2023-12-19T13:09:55-00:00", base * µs, 0),
            ("2023-12-20T07:09:55+18:00", base * µs, 64_800),
            ("2023-12-19 13:09:55 +00:00", base * µs, 0),
            ("2023-12-19T13:09Z", (base - 55) * µs, 0),
            ("2023-12-19T14:09+01:00", (base - 55) * µs, 3_600),
        ] as [(String, Int64, Int32)])
    func isoWithOffset(text: String, micros: Int64, offset: Int32) throws {
        let value = try parse(text)
        #expect(value.time.sinceEpoch.value == micros)
        #expect(value.utcOffsetSeconds == offset)
    }

    @Test("an explicit offset wins over the parser's zone")
    func explicitOffsetBeatsZone() throws {
        let value = try parse("2023-12-19T13:09:55Z", zone: "America/New_York")
        #expect(
            value == ParsedTimestamp(time: Instant(sinceEpoch: Microseconds(Self.base * Self.µs)), utcOffsetSeconds: 0))
    }

    @Test("quotes and blanks around the field are stripped")
    func stripping() throws {
        for text in [
            "  2023-12-19T13:09:55Z ", "\"2023-12-19T13:09:55Z\"", " \" 2023-12-19T13:09:55Z \"\r\n", "\t1702991395\t",
        ] {
            #expect(try parse(text).time.sinceEpoch.value == Self.base * Self.µs, "\(text)")
        }
        #expect(errorMessage("\"\"") == "empty timestamp")
        #expect(errorMessage("   ") == "empty timestamp")
        #expect(errorMessage("") == "empty timestamp")
    }

    @Test("the raw-buffer entry point")
    func rawBuffer() throws {
        var parser = TimestampParser()
        let bytes = Array("x,2023-12-19T13:09:55.131Z,y".utf8)
        let value = try bytes.withUnsafeBytes { all in
            try parser.parse(UnsafeRawBufferPointer(rebasing: all[2..<26]))
        }
        #expect(value.time.sinceEpoch.value == Self.base * Self.µs + 131_000)
        #expect(throws: TimestampError.self) { try parser.parse(UnsafeRawBufferPointer(start: nil, count: 0)) }
    }

    // MARK: Local date-times

    @Test("local date-times without a zone are read as UTC with unknown offset")
    func localAsUTC() throws {
        #expect(
            try parse("2023-12-19 13:09:55.131000")
                == ParsedTimestamp(time: Instant(sinceEpoch: Microseconds(Self.base * Self.µs + 131_000))))
        #expect(
            try parse("2023-12-19T13:09:55")
                == ParsedTimestamp(time: Instant(sinceEpoch: Microseconds(Self.base * Self.µs))))
        #expect(
            try parse("2023-12-19 13:09")
                == ParsedTimestamp(time: Instant(sinceEpoch: Microseconds((Self.base - 55) * Self.µs))))
        #expect(try parse("1969-12-31 23:59:59.5").time.sinceEpoch.value == -500_000)
        #expect(try parse("0001-01-01 00:00:00").time.sinceEpoch.value == -62_135_596_800 * Self.µs)
        #expect(try parse("9999-12-31 23:59:59.999999").time.sinceEpoch.value == 253_402_300_799 * Self.µs + 999_999)
    }

    @Test("local date-times in a zone with a :30 offset (Asia/Kolkata)")
    func kolkata() throws {
        let value = try parse("2023-12-19 18:39:55.131000", zone: "Asia/Kolkata")
        #expect(value.time.sinceEpoch.value == Self.base * Self.µs + 131_000)
        #expect(value.utcOffsetSeconds == 19_800)
        let minutes = try parse("2023-12-19 18:39", zone: "Asia/Kolkata")
        #expect(minutes.time.sinceEpoch.value == (Self.base - 55) * Self.µs)
    }

    @Test("America/New_York: standard, daylight, the spring gap and the fall-back hour")
    func newYork() throws {
        let zone = "America/New_York"
        // 2024-03-10 07:00Z is the spring-forward instant (02:00 EST → 03:00 EDT).
        let spring: Int64 = 1_710_054_000
        #expect(
            try parse("2024-03-10 01:59:59", zone: zone)
                == ParsedTimestamp(
                    time: Instant(sinceEpoch: Microseconds((spring - 1) * Self.µs)), utcOffsetSeconds: -18_000))
        #expect(
            try parse("2024-03-10 03:00:00", zone: zone)
                == ParsedTimestamp(time: Instant(sinceEpoch: Microseconds(spring * Self.µs)), utcOffsetSeconds: -14_400)
        )
        #expect(
            errorMessage("2024-03-10 02:30:00", zone: zone)
                == "local time 2024-03-10 02:30:00 does not exist in America/New_York (DST gap)")
        #expect(errorMessage("2024-03-10 02:00", zone: zone)?.hasSuffix("(DST gap)") == true)
        #expect(errorMessage("2024-03-10 02:59:59.999", zone: zone)?.hasSuffix("(DST gap)") == true)

        // 2024-11-03 01:00–01:59 local happens twice; the first occurrence (EDT) is chosen.
        let firstOccurrence: Int64 = 1_730_611_800  // 2024-11-03 05:30Z = 01:30 EDT
        #expect(
            try parse("2024-11-03 01:30:00", zone: zone)
                == ParsedTimestamp(
                    time: Instant(sinceEpoch: Microseconds(firstOccurrence * Self.µs)), utcOffsetSeconds: -14_400))
        #expect(try parse("2024-11-03 00:59:59", zone: zone).utcOffsetSeconds == -14_400)
        #expect(
            try parse("2024-11-03 01:59:59", zone: zone).time.sinceEpoch.value == (firstOccurrence + 1_799) * Self.µs)
        #expect(
            try parse("2024-11-03 02:00:00", zone: zone)
                == ParsedTimestamp(
                    time: Instant(sinceEpoch: Microseconds((firstOccurrence + 5_400) * Self.µs)),
                    utcOffsetSeconds: -18_000))
        // Winter and summer far from transitions.
        #expect(
            try parse("2023-12-19 08:09:55", zone: zone)
                == ParsedTimestamp(
                    time: Instant(sinceEpoch: Microseconds(Self.base * Self.µs)), utcOffsetSeconds: -18_000))
        #expect(try parse("2023-07-01 12:00", zone: zone).utcOffsetSeconds == -14_400)
    }

    @Test("Europe/Berlin: the spring gap and the fall-back hour")
    func berlin() throws {
        let zone = "Europe/Berlin"
        #expect(
            errorMessage("2024-03-31 02:30:00", zone: zone)
                == "local time 2024-03-31 02:30:00 does not exist in Europe/Berlin (DST gap)")
        let springInstant: Int64 = 1_711_846_800  // 2024-03-31 01:00Z = 03:00 CEST
        #expect(
            try parse("2024-03-31 03:00:00", zone: zone)
                == ParsedTimestamp(
                    time: Instant(sinceEpoch: Microseconds(springInstant * Self.µs)), utcOffsetSeconds: 7_200))
        #expect(try parse("2024-03-31 01:59:59", zone: zone).utcOffsetSeconds == 3_600)
        let first: Int64 = 1_729_989_000  // 2024-10-27 00:30Z = 02:30 CEST
        #expect(
            try parse("2024-10-27 02:30:00", zone: zone)
                == ParsedTimestamp(time: Instant(sinceEpoch: Microseconds(first * Self.µs)), utcOffsetSeconds: 7_200))
        #expect(try parse("2024-10-27 03:00:00", zone: zone).utcOffsetSeconds == 3_600)
    }

    @Test("cached offsets agree with Foundation over many local times (seeded)")
    func zoneCacheAgainstFoundation() throws {
        var rng = SplitMix64(seed: 2024)
        for identifier in ["America/New_York", "Europe/Berlin", "Asia/Kolkata", "Australia/Lord_Howe"] {
            let zone = try #require(TimeZone(identifier: identifier))
            var parser = TimestampParser(timeZone: zone)
            for _ in 0..<3_000 {
                // Instants 1990…2040, to the second, around transitions half of the time.
                var utc = 631_152_000 + Int64(rng.next() % 1_577_836_800)
                if rng.next() % 2 == 0,
                    let t = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: Double(utc)))
                {
                    utc = Int64(t.timeIntervalSince1970) + Int64(rng.next() % 7_200) - 3_600
                }
                let offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(utc))))
                let text = TimestampFormatting.iso(
                    micros: (utc + offset) * 1_000_000, separator: " ", offset: nil, fractionDigits: 0)
                let value = try parser.parse(text)
                if value.time.sinceEpoch.value != utc * 1_000_000 {
                    // Only allowed for the second occurrence of a repeated local time:
                    // the parser returns the earlier instant, on the larger offset.
                    let earlier = value.time.sinceEpoch.value / 1_000_000
                    #expect(earlier < utc, "\(identifier) \(text)")
                    #expect(Int64(value.utcOffsetSeconds ?? 0) > offset, "\(identifier) \(text)")
                    let check = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(earlier)))
                    #expect(Int64(check) + earlier == utc + offset, "\(identifier) \(text)")
                } else {
                    #expect(value.utcOffsetSeconds.map(Int64.init) == offset, "\(identifier) \(text)")
                }
            }
        }
    }

    // MARK: Epoch numbers

    @Test(
        "epoch numbers with auto-detected unit",
        arguments: [
            ("1702991395", base * µs),
            ("1702991395.131", base * µs + 131_000),
            ("1702991395.1234567", base * µs + 123_456),
            ("1702991395131", base * µs + 131_000),
            ("1702991395131.5", base * µs + 131_500),
            ("1702991395131456", base * µs + 131_456),
            ("1702991395131456.9", base * µs + 131_456),
            ("0", 0),
            ("-1", -µs),
            ("-1.5", -1_500_000),
            ("99999999999", 99_999_999_999 * µs),  // just under 1e11: seconds
            ("100000000000", 100_000_000_000 * 1_000),  // 1e11: milliseconds
            ("99999999999999", 99_999_999_999_999 * 1_000),
            ("100000000000000", 100_000_000_000_000),  // 1e14: microseconds
            ("99999999999999999", 99_999_999_999_999_999),
            ("-1702991395131", -(base * µs + 131_000)),
        ] as [(String, Int64)])
    func epochAuto(text: String, micros: Int64) throws {
        let value = try parse(text)
        #expect(value.time.sinceEpoch.value == micros)
        #expect(value.utcOffsetSeconds == nil)
    }

    @Test("epoch numbers in a stated unit")
    func epochUnits() throws {
        #expect(try parse("1702991395", unit: .seconds).time.sinceEpoch.value == Self.base * Self.µs)
        #expect(try parse("1702991395", unit: .milliseconds).time.sinceEpoch.value == Self.base * 1_000)
        #expect(try parse("1702991395", unit: .microseconds).time.sinceEpoch.value == Self.base)
        #expect(try parse("1702991395131", unit: .seconds).time.sinceEpoch.value == 1_702_991_395_131 * Self.µs)
        #expect(try parse("12.5", unit: .milliseconds).time.sinceEpoch.value == 12_500)
        #expect(try parse("12.5", unit: .microseconds).time.sinceEpoch.value == 12)
        #expect(try parse("100000000000000000", unit: .microseconds).time.sinceEpoch.value == 100_000_000_000_000_000)
        #expect(EpochUnit.allCases.count == 4)
    }

    @Test("epoch numbers out of range")
    func epochRange() {
        #expect(errorMessage("100000000000000000")?.contains("too large") == true)  // 1e17 with .auto
        #expect(errorMessage("9999999999999999999")?.contains("out of range") == true)
        #expect(errorMessage("99999999999999", unit: .seconds)?.contains("out of range") == true)
    }

    // MARK: Validation

    @Test("leap days")
    func leapDays() throws {
        #expect(try parse("2024-02-29T00:00:00Z").time.sinceEpoch.value == 1_709_164_800 * Self.µs)
        #expect(try parse("2000-02-29 12:00").time.sinceEpoch.value == (951_782_400 + 43_200) * Self.µs)
        #expect(
            errorMessage("2023-02-29 00:00:00") == "timestamp \"2023-02-29 00:00:00\" has invalid day 29 for 2023-02")
        #expect(errorMessage("1900-02-29 00:00:00")?.contains("invalid day 29 for 1900-02") == true)
        #expect(errorMessage("2023-04-31T00:00:00Z")?.contains("invalid day 31") == true)
        #expect(errorMessage("2023-01-00T00:00:00Z")?.contains("invalid day 0") == true)
    }

    @Test(
        "invalid fields are named",
        arguments: [
            ("2023-13-01 00:00:00", "has invalid month 13"),
            ("2023-00-01 00:00:00", "has invalid month 0"),
            ("2023-12-19 24:00:00", "has invalid hour 24"),
            ("2023-12-19 13:60:00", "has invalid minute 60"),
            ("2023-12-19 13:09:61", "has invalid second 61"),
            ("2023-12-19T13:09:55+19:00", "has invalid UTC offset +19:00"),
            ("2023-12-19T13:09:55-18:01", "has invalid UTC offset -18:01"),
            ("2023-12-19T13:09:55+05:60", "has invalid UTC offset +05:60"),
            ("2023-12-19T13:09:55.1234567891Z", "has more than 9 fractional digits"),
            ("2023-12-19", "has a date but no time of day"),
        ])
    func invalidFields(text: String, problem: String) {
        #expect(errorMessage(text) == "timestamp \"\(text)\" \(problem)")
    }

    @Test(
        "malformed text",
        arguments: [
            "17x", "abc", "-", ".5", "1.", "1e9", "+1702991395", "12:30", "2023-12-19T13", "2023-12-19T13:09:5",
            "2023-12-19T13:09:55.Z", "2023-12-19T13:09:55ZZ", "2023-12-19T13:09:55+1", "2023-12-19T13:09:55+01:0",
            "2023-12-19X13:09:55", "2023/12/19 13:09:55", "2023-1-19 13:09:55", "2023-12-19 13:09:55 UTC",
            "2023-12-19T13:09:55+01:00:00", "2023-12-19  13:09:55", "NaN",
        ])
    func malformed(text: String) {
        let message = "timestamp \"\(text)\" is not ISO-8601 or epoch"
        if text == "2023/12/19 13:09:55" {
            // A layout automatic reading does not take: the option that does, with a fitting layout.
            #expect(
                errorMessage(text) == message
                    + "; state the layout with --date-format, e.g. --date-format \"%Y/%m/%d %H:%M:%S\"")
        } else {
            #expect(errorMessage(text) == message)
        }
    }

    @Test("long text is cut in messages")
    func longQuote() {
        let text = "2023-12-19T13:09:55Z and then a very long tail of text"
        #expect(
            errorMessage(text) == "timestamp \"2023-12-19T13:09:55Z and then a very lon…\" is not ISO-8601 or epoch")
    }

    @Test("a leap second is clamped to :59.999999")
    func leapSecond() throws {
        #expect(try parse("2016-12-31T23:59:60Z").time.sinceEpoch.value == 1_483_228_799 * Self.µs + 999_999)
        #expect(try parse("2016-12-31T23:59:60.5Z").time.sinceEpoch.value == 1_483_228_799 * Self.µs + 999_999)
    }

    // MARK: Round trip

    @Test("seeded round trip: random instant → ISO text → same microseconds")
    func roundTrip() throws {
        var rng = SplitMix64(seed: 0xF00D)
        var utcParser = TimestampParser()
        var kolkata = TimestampParser(timeZone: TimeZone(identifier: "Asia/Kolkata"))
        let minMicros: Int64 = -2_208_988_800 * 1_000_000  // 1900
        let span: UInt64 = 6_311_433_600 * 1_000_000  // 200 years
        for i in 0..<20_000 {
            let micros = minMicros + Int64(rng.next() % span)
            let digits = Int(rng.next() % 7)  // 0…6 fraction digits
            let offsetMinutes = Int(rng.next() % (2 * 14 * 60 + 1)) - 14 * 60
            let offset: Int? = i % 5 == 0 ? nil : offsetMinutes * 60
            let separator: Character = i % 2 == 0 ? "T" : " "
            let truncated = TimestampFormatting.truncate(micros, digits: digits)
            let text = TimestampFormatting.iso(
                micros: truncated + Int64(offset ?? 0) * 1_000_000, separator: separator, offset: offset,
                fractionDigits: digits)
            let value = try utcParser.parse(text)
            #expect(value.time.sinceEpoch.value == truncated, "\(text)")
            #expect(value.utcOffsetSeconds.map(Int.init) == offset, "\(text)")

            // Kolkata has had +05:30 since 1945.
            if micros > 0 {
                let local = TimestampFormatting.iso(
                    micros: truncated + 19_800 * 1_000_000, separator: separator, offset: nil, fractionDigits: digits)
                #expect(try kolkata.parse(local).time.sinceEpoch.value == truncated, "\(local)")
            }
            // Epoch seconds with a fraction.
            let epoch = TimestampFormatting.epochSeconds(truncated)
            #expect(try utcParser.parse(epoch).time.sinceEpoch.value == truncated, "\(epoch)")
        }
    }
}

/// Test-side formatting of timestamps (independent of the parser).
enum TimestampFormatting {
    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }

    static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// Drops sub-second digits beyond `digits` (towards the past).
    static func truncate(_ micros: Int64, digits: Int) -> Int64 {
        var unit: Int64 = 1
        for _ in 0..<(6 - digits) { unit *= 10 }
        return floorDiv(micros, unit) * unit
    }

    /// `YYYY-MM-DD?HH:MM:SS[.f]` for a wall-clock time in microseconds, plus an offset when given.
    static func iso(micros: Int64, separator: Character, offset: Int?, fractionDigits: Int) -> String {
        let seconds = floorDiv(micros, 1_000_000)
        let fraction = micros - seconds * 1_000_000
        let days = floorDiv(seconds, 86_400)
        let secs = seconds - days * 86_400
        let date = Date(timeIntervalSince1970: Double(days * 86_400))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        var text =
            "\(pad(Int64(parts.year ?? 0), 4))-\(pad(Int64(parts.month ?? 0), 2))-\(pad(Int64(parts.day ?? 0), 2))"
        text += "\(separator)\(pad(secs / 3600, 2)):\(pad(secs / 60 % 60, 2)):\(pad(secs % 60, 2))"
        if fractionDigits > 0 {
            text += "." + String(pad(fraction, 6).prefix(fractionDigits))
        }
        if let offset {
            let sign = offset < 0 ? "-" : "+"
            let m = abs(offset) / 60
            text += offset == 0 ? "Z" : "\(sign)\(pad(Int64(m / 60), 2)):\(pad(Int64(m % 60), 2))"
        }
        return text
    }

    static func epochSeconds(_ micros: Int64) -> String {
        let sign = micros < 0 ? "-" : ""
        let m = abs(micros)
        return "\(sign)\(m / 1_000_000).\(pad(m % 1_000_000, 6))"
    }
}
