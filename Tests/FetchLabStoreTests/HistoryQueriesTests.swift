import FetchLabCore
import Foundation
import Testing
import _FetchLabTestSupport

@testable import FetchLabStore

@Suite struct HistoryQueriesTests {
    /// Two users of com.news (one also of com.mail), their context, and content updates of
    /// com.news, com.mail and an app nobody launched.
    func populated() throws -> Fixture {
        let f = try Fixture()
        _ = try f.importer.importFile(
            try f.dir.write(
                "usage.csv",
                """
                timestamp,user,app,event
                2024-03-01T12:00:00+02:00,u1,com.news,launch
                2024-03-01T12:05:00+02:00,u1,com.news,close
                2024-03-01T13:00:00Z,u1,com.mail,launch
                2024-03-02T08:00:00-05:00,u2,com.news,launch

                """))
        _ = try f.importer.importFile(
            try f.dir.write(
                "ctx.csv",
                """
                timestamp,user,battery,charging,network,low_power
                2024-03-01T11:00:00Z,u1,80,false,wifi,false
                2024-03-01T11:10:00Z,u1,79.5,,cellular,
                2024-03-01T11:20:00Z,u1,,true,,true

                """))
        _ = try f.importer.importFile(
            try f.dir.write(
                "content.csv",
                """
                timestamp,app
                2024-03-01T09:00:00Z,com.news
                2024-03-01T06:00:00Z,com.news
                2024-03-02T06:00:00Z,com.news
                2024-03-01T07:00:00Z,com.mail
                2024-03-01T07:00:00Z,com.weather

                """))
        return f
    }

    @Test func aHistoryHoldsEveryColumnAsStored() throws {
        let f = try populated()
        let h = try #require(try UsageQueries(database: f.db).history(of: UserID("u1")))
        #expect(h.apps == [AppID("com.mail"), AppID("com.news")])
        let t0 = try ISO.instant("2024-03-01T10:00:00Z")
        #expect(h.launches.map(\.time) == [t0, t0 + .hours(3)])
        #expect(h.launches.map(\.app) == [1, 0])
        #expect(h.launches.map(\.offset) == [7_200, 0])
        #expect(h.events.map(\.kind) == [.close])
        #expect(h.events.map(\.time) == [t0 + .minutes(5)])
        #expect(h.context.map(\.battery) == [80, 79.5, nil])
        #expect(h.context.map(\.charging) == [false, nil, true])
        #expect(h.context.map(\.network) == [.wifi, .cellular, nil])
        #expect(h.context.map(\.lowPower) == [false, nil, true])
        // Each app's updates, in time order; the unused app's are not the user's.
        #expect(h.updateTimes[0] == [try ISO.instant("2024-03-01T07:00:00Z")])
        #expect(
            h.updateTimes[1] == [
                try ISO.instant("2024-03-01T06:00:00Z"), try ISO.instant("2024-03-01T09:00:00Z"),
                try ISO.instant("2024-03-02T06:00:00Z"),
            ])
        #expect(h.contentUpdates.map(\.app) == [1, 0, 1, 1])
    }

    @Test func historiesBeforeAnInstantKeepOnlyEarlierUpdates() throws {
        let f = try populated()
        let h = try #require(
            try UsageQueries(database: f.db).history(
                of: UserID("u1"), before: try ISO.instant("2024-03-01T12:00:00Z")))
        #expect(h.launches.count == 1)
        #expect(h.updateTimes[1].count == 2)
        #expect(h.updateTimes[0].count == 1)
    }

    @Test func usersOfAnAppShareItsUpdatesInsteadOfEachHoldingACopy() throws {
        let f = try populated()
        let queries = UsageQueries(database: f.db)
        let u1 = try #require(try queries.history(of: UserID("u1")))
        let u2 = try #require(try queries.history(of: UserID("u2")))
        let news1 = u1.updateTimes[try #require(u1.index(of: AppID("com.news"))).asIndex]
        let news2 = u2.updateTimes[try #require(u2.index(of: AppID("com.news"))).asIndex]
        #expect(news1 == news2 && news1.count == 3)
        #expect(news1.withUnsafeBufferPointer { $0.baseAddress } == news2.withUnsafeBufferPointer { $0.baseAddress })
    }

    @Test func cuttingAHistoryCutsEachAppsUpdates() throws {
        let h = UserHistory(
            user: UserID("u"), apps: [AppID("a"), AppID("b"), AppID("c")],
            launches: [
                UsageEvent(time: 10, offset: 0, app: 2), UsageEvent(time: 20, offset: 0, app: 0),
                UsageEvent(time: 40, offset: 0, app: 1),
            ],
            contentUpdates: [
                ContentUpdate(time: 35, app: 0), ContentUpdate(time: 5, app: 0), ContentUpdate(time: 25, app: 2),
                ContentUpdate(time: 1, app: 1),
            ])
        #expect(h.updateTimes == [[5, 35], [1], [25]])
        let past = h.before(30)
        // b was not launched before 30: gone with its updates; a and c renumbered in order.
        #expect(past.apps == [AppID("a"), AppID("c")])
        #expect(past.updateTimes == [[5], [25]])
        #expect(past.contentUpdates == [ContentUpdate(time: 5, app: 0), ContentUpdate(time: 25, app: 1)])
    }
}

extension Int32 {
    fileprivate var asIndex: Int { Int(self) }
}

/// ISO 8601 instants for expectations.
private enum ISO {
    static func instant(_ text: String) throws -> Instant {
        let f = ISO8601DateFormatter()
        let date = try #require(f.date(from: text))
        return Instant(sinceEpoch: Microseconds(date.timeIntervalSince1970) * 1_000_000)
    }
}
