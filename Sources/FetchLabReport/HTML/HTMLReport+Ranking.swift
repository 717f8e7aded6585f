import FetchLabCore
import FetchLabSimulation
import Plot

// Issue 24's trial of a typed HTML builder (JohnSundell/Plot 0.14.0) on one section, the ranking
// table. Plot 0.14.0 escapes text nodes only for `<`, `>` and `&` (and leaves `&name;` as it is)
// and writes attribute values as given, unescaped; so text and attribute values go through the two
// helpers below, which apply ``HTML/escape(_:)``, never through `.text` or `.attribute` directly.

extension Node {
    /// Text, escaped as everywhere in the report (quotes, bidirectional and control characters).
    static func escaped(_ text: String) -> Node { .raw(HTML.escape(text)) }

    /// An attribute whose value is escaped; an empty value is kept (`name=""` in a browser).
    static func attribute(_ name: String, _ value: String) -> Node {
        .attribute(named: name, value: HTML.escape(value), ignoreIfValueIsEmpty: false)
    }
}

extension HTMLReport {
    // MARK: - (2) The ranked table

    /// The ranking section, built with Plot's typed nodes.
    static func ranking(_ r: ComparisonReport, _ picks: Picks) -> String {
        let table = RankingTable(r)
        let head = Node<Plot.HTML.TableRowContext>.forEach(table.columns.enumerated()) { i, title in
            .th(
                .attribute("data-col", "\(i)"), .attribute("data-type", i == 1 ? "text" : "num"),
                .attribute("aria-sort", "none"), .attribute("tabindex", "0"), .escaped(title))
        }
        let body = Node<Plot.HTML.TableContext>.forEach(table.rows) { row in
            .tr(
                .if(row.policy.name == picks.recommended?.name, .class("recommended")),
                .attribute("data-family", row.policy.family),
                .forEach(row.cells.enumerated()) { i, cell in
                    i == 1
                        ? .th(.attribute("scope", "row"), .attribute("data-v", cell.value), .escaped(cell.text))
                        : .td(.attribute("data-v", cell.value), .escaped(cell.text))
                })
        }
        let section = Node<Plot.HTML.BodyContext>.section(
            .id("ranking-section"), .h2(.text("Ranking")), .raw("\n"),
            .p(.class("caption"), .escaped(rankingCaption(picks))), .raw("\n"),
            .div(
                .class("scroll"),
                .table(
                    .id("ranking"), .data(named: "rows", value: "\(table.rows.count)"), .thead(.tr(head)),
                    .tbody(body))))
        return section.render()
    }
}
