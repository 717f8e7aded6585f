import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

@Suite struct ISO8601Tests {
    /// 2024-03-31T01:00:00Z.
    static let t = Instant(secondsSince1970: 1_711_846_800)

    @Test func jsonWritesUTCAsAnOffsetAndMillisecondsWhenThereAreAny() {
        #expect(ISO8601.string(Self.t, offset: 7200, style: .json) == "2024-03-31T03:00:00+02:00")
        #expect(ISO8601.string(Self.t, offset: 0, style: .json) == "2024-03-31T01:00:00+00:00")
        #expect(ISO8601.string(Self.t + 250_000, offset: -19_800, style: .json) == "2024-03-30T19:30:00.250-05:30")
        #expect(ISO8601.string(-1, offset: 0, style: .json) == "1969-12-31T23:59:59.999+00:00")
        #expect(ISO8601.local(Self.t + 5_000, offset: 3600) == "2024-03-31T02:00:00.005+01:00")
    }

    @Test func logFilesWriteUTCAsZToWholeSeconds() {
        #expect(ISO8601.string(Self.t, offset: 7200, style: .logFile) == "2024-03-31T03:00:00+02:00")
        #expect(ISO8601.string(Self.t + 999_999, offset: 0, style: .logFile) == "2024-03-31T01:00:00Z")
        #expect(ISO8601.string(-1, offset: 0, style: .logFile) == "1969-12-31T23:59:59Z")
    }

    @Test func recordsWriteUTCAsZAndAlwaysMilliseconds() {
        #expect(ISO8601.string(Self.t, offset: 0, style: .record) == "2024-03-31T01:00:00.000Z")
        #expect(ISO8601.string(Self.t + 123_456, offset: 0, style: .record) == "2024-03-31T01:00:00.123Z")
        #expect(ISO8601.string(Self.t, offset: -3600, style: .record) == "2024-03-31T00:00:00.000-01:00")
    }

    /// `utc(_:)` writes what Foundation's formatter wrote before it (milliseconds, `Z`).
    @Test func utcOfADateIsFoundationsText() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let moments: [Int64] = [
            0, 1, 999, 1_000, 1_764_088_719_123, 1_764_088_719_999, 1_711_846_800_500, 4_102_444_799_001,
        ]
        for ms in moments {
            let date = Date(timeIntervalSince1970: Double(ms) / 1_000)
            #expect(ISO8601.utc(date) == formatter.string(from: date), "\(ms) ms")
        }
    }
}
