import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

/// A moment is an ``Instant``, a span ``Microseconds``: the arithmetic between them, their order,
/// and how an instant is written (JSON, text), which must be what a bare number of microseconds was.
@Suite struct InstantTests {
    /// A moment from about 1900 to 2100 and a span of up to about 100 days either way.
    static func draw(_ draws: inout SeededDraws) -> (Instant, Microseconds) {
        let t = Instant(sinceEpoch: Microseconds(Int64(draws.below(6_300_000_000_000_000)) - 2_200_000_000_000_000))
        let span = Microseconds(Int64(draws.below(17_280_000_000_000)) - 8_640_000_000_000)
        return (t, span)
    }

    @Test func anInstantPlusASpanIsAnInstantAndTheirDifferenceIsTheSpan() {
        withEvery(seed: 1...500) { draws in
            let (t, span) = Self.draw(&draws)
            let u = t + span
            #expect(u - t == span)
            #expect(u - span == t)
            #expect(span + t == u)
            #expect((u < t) == (span < 0) && (u == t) == (span == 0))
            var v = t
            v += span
            #expect(v == u)
            v -= span
            #expect(v == t)
            #expect(u.sinceEpoch - t.sinceEpoch == span, "the same arithmetic as on the bare number")
        }
    }

    @Test func theOrderIsTheNumbersAndTheBoundsHoldEveryInstant() {
        withEvery(seed: 1...200) { draws in
            let (a, _) = Self.draw(&draws)
            let (b, _) = Self.draw(&draws)
            #expect((a < b) == (a.sinceEpoch < b.sinceEpoch))
            #expect((a == b) == (a.sinceEpoch == b.sinceEpoch))
            #expect(Instant.distantPast < a && a < Instant.distantFuture)
            #expect(Set([a, b, a]).count == (a == b ? 1 : 2))
        }
        let times: [Instant] = [10, 20, 20, 30]
        #expect(times.count(upTo: 20) == 3 && times.count(upTo: 20, inclusive: false) == 1)
        #expect(times.count(upTo: 5) == 0 && times.count(upTo: 99) == 4)
    }

    /// JSON writes an instant as its microseconds since 1970, as the reports did before instants had
    /// a type, and reads one back from the number.
    @Test func jsonWritesTheMicrosecondsSince1970() throws {
        let t = Instant(sinceEpoch: 1_710_913_800_000_123)
        let encoded = try JSONEncoder().encode([t, Instant(sinceEpoch: -1)])
        #expect(String(decoding: encoded, as: UTF8.self) == "[1710913800000123,-1]")
        #expect(try JSONDecoder().decode([Instant].self, from: Data("[5,-7]".utf8)) == [5, -7])
    }

    @Test func textIsISO8601InUTC() {
        #expect(Instant(secondsSince1970: 1_711_846_800).description == "2024-03-31T01:00:00.000Z")
        #expect(Instant.epoch.description == "1970-01-01T00:00:00.000Z")
        #expect(Instant(sinceEpoch: -1).wholeSeconds == -1)
        #expect(LocalCalendar.day(Instant(sinceEpoch: -1), offset: 0) == -1)
    }
}

/// A span is a number of microseconds with the arithmetic of spans: what it computes, prints and
/// writes is what `Int64` did, and a span divided by a span is a count.
@Suite struct SpanTests {
    @Test func spansAddScaleAndDivideAsTheirNumbers() {
        withEvery(seed: 1...300) { draws in
            let a = Microseconds(Int64(draws.below(1 << 40)) - (1 << 39))
            let b = Microseconds(Int64(draws.below(1 << 30)) + 1)
            let n = Int64(draws.below(1_000)) + 1
            #expect((a + b).value == a.value + b.value && (a - b).value == a.value - b.value)
            #expect((a * n).value == a.value * n && (n * a) == a * n && (a * n) / n == a)
            #expect(a / b == a.value / b.value && (a % b).value == a.value % b.value)
            #expect(b * (a / b) + a % b == a, "whole parts and the rest make the span")
            #expect(abs(a).value == Swift.abs(a.value) && -(-a) == a)
            #expect((a < b) == (a.value < b.value))
            #expect(Double(a) == Double(a.value) && Int64(a) == a.value && Int(b) == Int(b.value))
        }
        #expect(Microseconds.minutes(90) / .hours(1) == 1 && Microseconds.minutes(90) % .hours(1) == .minutes(30))
        #expect(Microseconds.days(1) == 24 * .hours(1) && Microseconds.perDay.inHours == 24)
    }

    @Test func aSpanPrintsAndIsWrittenAsItsNumber() throws {
        let span: Microseconds = 260_000
        #expect("\(span)" == "260000" && "\(-span)" == "-260000")
        #expect(
            String(decoding: try JSONEncoder().encode([span, .max]), as: UTF8.self) == "[260000,9223372036854775807]")
        #expect(try JSONDecoder().decode(Microseconds.self, from: Data("-5".utf8)) == -5)
    }
}
