import Foundation
import GRDB
import Testing
import _FetchLabTestSupport

/// `fetchlab import` of a Knowledge store (knowledgeC.db), end to end with the built binary.
@Suite struct KnowledgeStoreTests {
    typealias O = KnowledgeStoreFixture.Object
    let dir = TemporaryDirectory()
    var db: String { dir.path("fl.sqlite") }

    func store(bad: Bool = false) throws -> String {
        let path = dir.path("knowledgeC.db")
        var objects = [
            O(
                1, "/app/inFocus", start: "2024-03-01T10:00:00Z", end: "2024-03-01T10:05:00Z",
                string: "com.apple.mobilesafari", offset: 3600),
            O(
                2, "/app/inFocus", start: "2024-03-01T10:06:00Z", end: "2024-03-01T10:09:00Z",
                string: "com.apple.mobilesafari", offset: 3600),
            O(
                3, "/app/inFocus", start: "2024-03-01T12:00:00Z", end: "2024-03-01T12:30:00Z",
                string: "com.apple.MobileSMS", offset: 3600),
            O(
                4, "/app/inFocus", start: "2024-03-02T08:00:00Z", end: "2024-03-02T08:01:00Z",
                string: "com.apple.MobileSMS", offset: 3600),
            O(5, "/device/batteryPercentage", start: "2024-03-01T10:00:00Z", double: 80, offset: 3600),
            O(6, "/device/isPluggedIn", start: "2024-03-01T11:00:00Z", integer: 1, offset: 3600),
        ]
        if bad { objects.append(O(7, "/app/inFocus", start: nil, string: "com.x")) }
        try KnowledgeStoreFixture.make(path, objects)
        return path
    }

    @Test func importThenInspectShowsTheLaunches() throws {
        let file = try store()
        let imported = try dir.fetchlab(["import", "--db", db, "--user", "iphone", file])
        #expect(imported.status == 0, "\(imported.err)")
        #expect(imported.out.contains("6 rows"), "\(imported.out)")
        #expect(!imported.out.contains("unaccounted"), "\(imported.out)")  // the closes are derived records
        let inspect = try dir.fetchlab(["inspect", "--db", db, "--format", "json"])
        #expect(inspect.status == 0, "\(inspect.err)")
        let report = try inspect.json()
        let launches = try #require(report["launches"] as? [[String: Any]])
        #expect(launches.allSatisfy { $0["user"] as? String == "iphone" })
        #expect(launches.reduce(0) { $0 + ($1["launches"] as? Int ?? 0) } == 3)
        let samples = try GRDB.DatabaseQueue(path: db).read {
            try Int.fetchOne($0, sql: "SELECT count(*) FROM context_sample")
        }
        #expect(samples == 2)
        let text = try dir.fetchlab(["inspect", "--db", db])
        #expect(text.out.contains("iphone"))

        // The same store again: unchanged.
        let again = try dir.fetchlab(["import", "--db", db, "--user", "iphone", file])
        #expect(again.status == 0)
        #expect(again.out.contains("unchanged"), "\(again.out)")
    }

    @Test func strictStopsAtABadRowWithOneLine() throws {
        let file = try store(bad: true)
        let strict = try dir.fetchlab(["import", "--db", db, "--strict", file])
        #expect(strict.status != 0)
        #expect(strict.err.contains("\(file):7: ZSTARTDATE is NULL"), "\(strict.err)")
        #expect(strict.err.split(separator: "\n").filter { $0.contains("ZSTARTDATE") }.count == 1, "\(strict.err)")
        let lenient = try dir.fetchlab(["import", "--db", db, file])
        #expect(lenient.status == 0, "\(lenient.err)")
        #expect(lenient.out.contains("1 rejected"), "\(lenient.out)")
    }

    @Test func aSQLiteFileThatIsNotAKnowledgeStoreFailsInOneLine() throws {
        let path = dir.path("other.db")
        try SQLiteConnection(path).execute("CREATE TABLE t (x);")
        let result = try dir.fetchlab(["import", "--db", db, path])
        #expect(result.status != 0)
        #expect(result.err.contains("a SQLite database but not a Knowledge store (no ZOBJECT table)"), "\(result.err)")
        #expect(!result.err.contains("Fatal") && !result.err.contains("Stack"))
    }
}
