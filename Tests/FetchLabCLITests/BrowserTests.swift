import Foundation
import Testing
import _FetchLabTestSupport

/// A headless Chromium, if the machine has one (README's set-up installs the `chromium` package).
enum Browser {
    static let path: String? = {
        let candidates = ProcessInfo.processInfo.environment["FETCHLAB_CHROMIUM"].map { [$0] } ?? []
        for name in candidates + ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"] {
            if name.hasPrefix("/") { if FileManager.default.isExecutableFile(atPath: name) { return name } }
            for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
                let candidate = "\(dir)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }()

    /// Runs the browser headless on `url` with `arguments` (each run with its own profile).
    static func run(_ arguments: [String], url: String, profile: String) throws -> ProcessResult {
        try _FetchLabTestSupport.run(
            path!,
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-pings",
                "--user-data-dir=\(profile)", "--virtual-time-budget=5000",
            ] + arguments + [url])
    }
}

/// The demo's HTML report rendered in a real browser: it loads without errors or network
/// requests, its charts hold what the comparison holds, its table sorts, and it is not blank.
@Suite(.enabled(if: Browser.path != nil, "no Chromium: install the `chromium` package as README's set-up says"))
struct BrowserTests {
    let dir = TemporaryDirectory()

    /// The `#selftest` summary in a dumped DOM.
    static func selftest(_ dom: String) throws -> [String: Any] {
        let pre = try #require(
            dom.range(of: "<pre id=\"selftest\">").map { dom[$0.upperBound...] }
                .flatMap { rest in rest.range(of: "</pre>").map { String(rest[..<$0.lowerBound]) } },
            "no self-test output in:\n\(dom.prefix(2_000))")
        let text = pre.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }

    /// After a tuning run the report ends with its section, which loads without errors and plots
    /// every setting tried.
    @Test func aReportWithATuningRunWorksInAHeadlessBrowser() throws {
        let root = packageRoot().path
        let db = dir.path("tuned.sqlite")
        #expect(try dir.fetchlab(["demo", "--db", db, "--format", "json"], cwd: root).status == 0)
        let tuned = try dir.fetchlab(
            ["tune", "--db", db, "--family", "fixed", "--grid", "interval=1h,4h", "--format", "json"],
            cwd: root)
        #expect(tuned.status == 0, "\(tuned.err)")
        let object = try tuned.json()
        let tried = try #require((object["folds"] as? [[String: Any]])?.last?["tried"] as? [Any])
        let html = dir.path("tuned.html")
        #expect(try dir.fetchlab(["report", "--db", db, "--output", html], cwd: root).status == 0)
        let dom = try Browser.run(["--dump-dom"], url: "file://\(html)#selftest", profile: dir.path("profile-t"))
        #expect(dom.status == 0, "\(dom.err)")
        let selftest = try Self.selftest(dom.out)
        #expect((selftest["errors"] as? [Any])?.isEmpty == true, "script errors: \(selftest["errors"] ?? "?")")
        #expect(selftest["sortedOk"] as? Bool == true)
        #expect(
            selftest["sections"] as? [String] == [
                "summary", "budget-section", "ranking-section", "pareto-section", "per-app-section", "timeline-section",
                "skips-section", "staleness-section", "tuning-section",
            ])
        let charts = try #require(selftest["charts"] as? [String: [String: Int]])
        #expect(charts["tuning-scatter"]?["points"] == tried.count)
        #expect(charts["tuning-scatter"]?["chosen"] == 1)
        #expect(selftest["resources"] as? Int == 0)
    }

    @Test func theDemosReportWorksInAHeadlessBrowser() throws {
        let root = packageRoot().path
        let db = dir.path("demo.sqlite")
        let demo = try dir.fetchlab(["demo", "--db", db], cwd: root)
        #expect(demo.status == 0, "\(demo.err)")
        let html = dir.path("report.html")
        #expect(demo.out.contains(html), "the demo says where the report is:\n\(demo.out)")
        let json = try dir.fetchlab(["runs", "show", "1", "--db", db, "--format", "json"], cwd: root)
        let report = try json.json()
        let policies = try #require(report["policies"] as? [[String: Any]])
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.utf8.count < 2_000_000)

        // The page's own self-test (`#selftest`): script errors caught, the table sorted, the
        // timeline switched, sections and chart elements counted; the network log of the same load.
        let netlog = dir.path("netlog.json")
        let dom = try Browser.run(
            ["--dump-dom", "--log-net-log=\(netlog)"], url: "file://\(html)#selftest", profile: dir.path("profile-1"))
        #expect(dom.status == 0, "\(dom.err)")
        let selftest = try Self.selftest(dom.out)
        #expect((selftest["errors"] as? [Any])?.isEmpty == true, "script errors: \(selftest["errors"] ?? "?")")
        #expect(selftest["rows"] as? Int == policies.count)
        #expect(selftest["sortedOk"] as? Bool == true)
        #expect(selftest["timelineSwitchOk"] as? Bool == true)
        #expect(
            selftest["sections"] as? [String] == [
                "summary", "budget-section", "ranking-section", "pareto-section", "per-app-section", "timeline-section",
                "skips-section", "staleness-section",
            ])
        let charts = try #require(selftest["charts"] as? [String: [String: Int]])
        #expect(charts["pareto"]?["points"] == policies.count)
        let metrics = policies.map { $0["metrics"] as? [String: Any] ?? [:] }
        let curve = try #require(report["budget_curve"] as? [[String: Any]])
        let families = try #require(curve.first?["families"] as? [String: Any])
        #expect(charts["budget-curve"]?["lines"] == families.count)
        #expect(charts["budget-curve"]?["bound"] ?? 0 > 3)
        _ = metrics
        let timeline = try #require(report["timeline"] as? [String: Any])
        let days = try #require(timeline["policies"] as? [[String: Any]])
        #expect(charts["timeline"]?["policies"] == days.count)
        // The self-test switched the timeline to the last policy: it draws one mark per launch of
        // that user's day.
        let groups = dom.out.components(separatedBy: "<g class=\"day\"").dropFirst()
        #expect(groups.count == days.count)
        let visible = groups.filter { $0.prefix(400).contains("display=\"inline\"") }
        #expect(visible.count == 1)
        let marks =
            (visible.first ?? "").components(separatedBy: "</g>")[0]
            .components(separatedBy: "<circle class=\"launch").count - 1
        #expect(marks == (days.last?["launches"] as? [Any])?.count)
        #expect(marks > 0)
        // No request left the file: the page loaded no resource, and the network log holds no URL
        // but the browser's own services (update checks and the like, which it makes whatever the page).
        #expect(selftest["resources"] as? Int == 0, "resources loaded: \(selftest["resources"] ?? "?")")
        let log = (try? String(contentsOfFile: netlog, encoding: .utf8)) ?? ""
        #expect(!log.isEmpty)
        let pattern = try Regex("\"url\":\"([a-z]+://[^\"/]*)")
        let origins = Set(log.matches(of: pattern).compactMap { $0.output[1].substring.map(String.init) })
        let browserOwn = ["google.com", "googleapis.com", "gstatic.com", "gvt1.com", "chromium.org"]
        let pages = origins.filter { origin in !browserOwn.contains { origin.hasSuffix($0) } }
        #expect(pages.isEmpty, "the page requested \(pages)")

        // A screenshot that is not blank: far larger than the same screenshot of an empty page.
        let shot = dir.path("report.png")
        let blank = dir.path("blank.png")
        let a = try Browser.run(
            ["--screenshot=\(shot)", "--window-size=1280,2400"], url: "file://\(html)", profile: dir.path("profile-2"))
        let b = try Browser.run(
            ["--screenshot=\(blank)", "--window-size=1280,2400"], url: "about:blank", profile: dir.path("profile-3"))
        #expect(a.status == 0 && b.status == 0, "\(a.err)\n\(b.err)")
        let size = (try? FileManager.default.attributesOfItem(atPath: shot)[.size] as? Int) ?? 0
        let blankSize = (try? FileManager.default.attributesOfItem(atPath: blank)[.size] as? Int) ?? 0
        #expect(blankSize > 0 && size > 5 * blankSize, "report.png \(size) B, blank.png \(blankSize) B")
    }

    /// A report of apps named with a right-to-left override and with 990 characters: it loads
    /// without errors, the override is shown (⟨U+202E⟩) not obeyed, and the page is no wider than
    /// the window (it was 8,341 px).
    @Test func aReportOfHostileNamesStaysReadable() throws {
        let html = try hostileReport()
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(!page.contains("\u{202E}"))
        #expect(page.contains("⟨U+202E⟩gpj.exe"))
        let dom = try Browser.run(
            ["--dump-dom", "--window-size=1300,1700"], url: "file://\(html)#selftest", profile: dir.path("profile-h"))
        #expect(dom.status == 0, "\(dom.err)")
        let selftest = try Self.selftest(dom.out)
        #expect((selftest["errors"] as? [Any])?.isEmpty == true, "script errors: \(selftest["errors"] ?? "?")")
        let width = try #require(selftest["pageWidth"] as? Int)
        let view = try #require(selftest["viewWidth"] as? Int)
        #expect(width <= view, "the page is \(width) px wide in a \(view) px window")
    }

    /// `compare --format html` of apps named with a right-to-left override and with 990
    /// characters, never, fixed(1h) and a predictive policy: the page's path.
    func hostileReport() throws -> String {
        let db = dir.path("hostile.sqlite")
        let long = String(repeating: "verylongappname.", count: 62)
        var csv = "timestamp,user,app\n"
        for day in 0..<20 {
            for (i, app) in ["\u{202E}gpj.exe", long, "com.plain"].enumerated() {
                for k in 0..<3 {
                    csv +=
                        "2024-03-\(String(format: "%02d", day + 1))T\(String(format: "%02d", 8 + i * 3 + k)):05:00Z,u\u{202E}1,\"\(app)\"\n"
                }
            }
        }
        let file = try dir.write("hostile.csv", csv)
        #expect(try dir.fetchlab(["import", "--db", db, file]).status == 0)
        let html = dir.path("hostile.html")
        let compared = try dir.fetchlab(
            [
                "compare", "--db", db, "--policies", "never,fixed(1h),predictive(15m,0.3)", "--format", "html",
                "--output", html,
            ])
        #expect(compared.status == 0, "\(compared.err)")
        return html
    }

    /// The layout and recommendation failures in a self-test summary (`layout`, `recommendation`),
    /// each naming the element; tables wider than their scrolling box count only when `tables`.
    static func failures(_ selftest: [String: Any], tables: Bool) -> [String] {
        let layout = selftest["layout"] as? [String: Any] ?? [:]
        var out: [String] = []
        for key in ["overflow", "textOutside", "labelOverlaps"] + (tables ? ["clippedTables"] : []) {
            guard let list = layout[key] as? [String] else {
                out.append("no \(key) in the self-test")
                continue
            }
            out += list.map { "\(key): \($0)" }
        }
        let recommendation = selftest["recommendation"] as? [String: Any] ?? [:]
        if let problems = recommendation["problems"] as? [String] {
            out += problems.map { "recommendation: \($0)" }
        } else {
            out.append("no recommendation check in the self-test")
        }
        return out
    }

    /// The DOM of `html#selftest` in a viewport `width` px wide: the browser's window, or under
    /// Chromium's least window width (500 px) a frame of that width in a page that copies the
    /// frame's self-test out.
    static func load(_ html: String, width: Int, in dir: TemporaryDirectory, profile: String) throws -> ProcessResult {
        guard width < 500 else {
            return try Browser.run(
                ["--dump-dom", "--window-size=\(width),2000"], url: "file://\(html)#selftest",
                profile: dir.path(profile))
        }
        let frame = try dir.write(
            "\(profile).html",
            """
            <!DOCTYPE html><html><body style="margin:0">
            <iframe id="f" src="file://\(html)#selftest" style="width:\(width)px;height:2000px;border:0"></iframe>
            <pre id="selftest"></pre><script>
            document.getElementById("f").onload = function () {
              var d = this.contentDocument, pre = d && d.getElementById("selftest");
              document.getElementById("selftest").textContent = pre ? pre.textContent : '{"errors":["no access to the frame"]}';
            };
            </script></body></html>
            """)
        return try Browser.run(
            ["--dump-dom", "--window-size=800,2100", "--allow-file-access-from-files"], url: "file://\(frame)",
            profile: dir.path(profile))
    }

    /// The page fits the screen and says one thing, in a 1400 px window and on a phone (390 px):
    /// nothing overflows the page or a section horizontally, every SVG text lies inside its SVG's
    /// box, no two labels overlap; at 1400 px no table needs its scroll bar; the headline names
    /// the recommended policy, the ranking highlights that row alone and the tuning section shows
    /// its tuned setting as the tuning's result, not a second recommendation. Two pages: the
    /// demo's comparison with a tuning run of another family, and a comparison of apps with long
    /// and hostile names.
    @Test func theReportFitsTheScreenAndSaysOneThing() throws {
        let root = packageRoot().path
        let db = dir.path("fit.sqlite")
        #expect(try dir.fetchlab(["demo", "--db", db, "--format", "json"], cwd: root).status == 0)
        let tuned = try dir.fetchlab(
            ["tune", "--db", db, "--family", "fixed", "--grid", "interval=1h,4h", "--format", "json"], cwd: root)
        #expect(tuned.status == 0, "\(tuned.err)")
        let demo = dir.path("fit.html")
        #expect(try dir.fetchlab(["report", "--db", db, "--output", demo], cwd: root).status == 0)
        let hostile = try hostileReport()
        for (name, html) in [("demo", demo), ("hostile", hostile)] {
            for width in [1400, 390] {
                let dom = try Self.load(html, width: width, in: dir, profile: "profile-\(name)-\(width)")
                #expect(dom.status == 0, "\(dom.err)")
                let selftest = try Self.selftest(dom.out)
                #expect((selftest["errors"] as? [Any])?.isEmpty == true, "script errors: \(selftest["errors"] ?? "?")")
                let layout = selftest["layout"] as? [String: Any]
                #expect(layout?["width"] as? Int == width)
                let failures = Self.failures(selftest, tables: width >= 1400)
                #expect(failures.isEmpty, "\(name) at \(width) px:\n\(failures.joined(separator: "\n"))")
                if name == "demo" {
                    let recommendation = try #require(selftest["recommendation"] as? [String: Any])
                    #expect((recommendation["headline"] as? String)?.isEmpty == false)
                }
                // The hostile page's users have no context samples: its strip is drawn as assumed;
                // the demo's users all have samples.
                let charts = selftest["charts"] as? [String: [String: Int]]
                #expect(charts?["timeline"]?["assumed-context"] == (name == "hostile" ? 1 : 0))
            }
        }
    }

    /// The charts can be trusted at a glance (issue 46): `Tests/BrowserChecks/chart-checks.js`
    /// (which runs on any report; `check-report.sh` runs it by hand) finds, on the demo's report
    /// with a tuning run, in a 1400 px window and on a 390 px phone: no two families of a chart
    /// drawn alike nor one family drawn two ways, no chart text under 11 px, each label at its
    /// point or joined to it by a leader line, no legend over a plotted point or line, every
    /// per-app bar visible, every budget mark labelled, the budget axis starting at the data, a
    /// divider between the ranking's budget bands, no name broken inside a word and a hint over
    /// whatever scrolls sideways. On the report before the fix it found 22 families sharing a
    /// look, 137 texts at 3.8–4.8 px on the phone, 6–7 labels away from their points, 2 legend
    /// entries over curves, 5 unlabelled budget marks, the axis starting 24 % before the data,
    /// 6 missing band dividers, 21–24 names broken mid-word and 3 tables scrolling unannounced.
    @Test func theChartsCanBeTrustedAtAGlance() throws {
        let root = packageRoot().path
        let db = dir.path("glance.sqlite")
        #expect(try dir.fetchlab(["demo", "--db", db, "--format", "json"], cwd: root).status == 0)
        let html = dir.path("glance.html")
        #expect(try dir.fetchlab(["report", "--db", db, "--output", html], cwd: root).status == 0)
        for width in [1400, 390] {
            let checks = try Self.chartChecks(html, width: width)
            #expect(checks["width"] as? Int == width)
            let lists = try #require(checks["checks"] as? [String: [String]], "\(checks)")
            #expect(lists.count == 11)
            let failures = lists.sorted { $0.key < $1.key }.flatMap { key, list in list.map { "\(key): \($0)" } }
            #expect(failures.isEmpty, "at \(width) px:\n\(failures.joined(separator: "\n"))")
            #expect((checks["minTextPx"] as? Double ?? 0) >= 11, "\(checks["minTextPx"] ?? "?")")
        }
    }

    /// The summary of `Tests/BrowserChecks/chart-checks.js` run on `html` in a viewport `width` px
    /// wide, through `Tests/BrowserChecks/check-report.sh` (the one way to run the checks on any
    /// report) with the Chromium this suite found.
    static func chartChecks(_ html: String, width: Int) throws
        -> [String: Any]
    {
        let script = packageRoot().appendingPathComponent("Tests/BrowserChecks/check-report.sh").path
        let result = try _FetchLabTestSupport.run(
            "/bin/sh", [script, html, String(width)], environment: ["CHROMIUM": Browser.path!])
        #expect(result.status == 0, "\(result.err)")
        let text = result.out.trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
    }
}
