import Foundation

/// A map from data values onto pixel positions, with the tick values of its axis.
public protocol ChartScale: Sendable {
    /// The pixel position of `value` (values outside the domain map outside the range).
    func position(_ value: Double) -> Double
    /// Tick values within the domain, "nice" numbers (1, 2 or 5 times a power of ten).
    func ticks() -> [Double]
}

/// A linear scale: `domain.lowerBound` maps to `from`, `domain.upperBound` to `to` (a y axis has
/// `from` below `to` on the page, so `from > to` in pixels).
public struct LinearScale: ChartScale {
    public var domain: ClosedRange<Double>
    public var from: Double
    public var to: Double
    /// How many ticks to aim for.
    public var tickCount: Int

    public init(domain: ClosedRange<Double>, from: Double, to: Double, tickCount: Int = 5) {
        self.domain = domain
        self.from = from
        self.to = to
        self.tickCount = tickCount
    }

    /// A scale over `values` widened to nice tick multiples (and to include `including`).
    public init(covering values: [Double], including: [Double] = [], from: Double, to: Double, tickCount: Int = 5) {
        let all = (values + including).filter(\.isFinite)
        let lo = all.min() ?? 0
        let hi = all.max() ?? 1
        self.init(domain: SVGChart.niceDomain(lo, hi, count: tickCount), from: from, to: to, tickCount: tickCount)
    }

    public func position(_ value: Double) -> Double {
        let span = domain.upperBound - domain.lowerBound
        guard span > 0 else { return (from + to) / 2 }
        return from + (value - domain.lowerBound) / span * (to - from)
    }

    public func ticks() -> [Double] { SVGChart.niceTicks(domain.lowerBound, domain.upperBound, count: tickCount) }
}

/// A base-10 logarithmic scale over a positive domain; values at or below zero map to the
/// domain's lower end.
public struct LogScale: ChartScale {
    public var domain: ClosedRange<Double>
    public var from: Double
    public var to: Double

    public init(domain: ClosedRange<Double>, from: Double, to: Double) {
        self.domain = domain
        self.from = from
        self.to = to
    }

    /// A scale over the positive `values`, widened to powers of ten.
    public init(covering values: [Double], from: Double, to: Double) {
        let positive = values.filter { $0 > 0 && $0.isFinite }
        let lo = pow(10, (log10(positive.min() ?? 1)).rounded(.down))
        var hi = pow(10, (log10(positive.max() ?? 10)).rounded(.up))
        if hi <= lo { hi = lo * 10 }
        self.init(domain: lo...hi, from: from, to: to)
    }

    public func position(_ value: Double) -> Double {
        let lo = log10(domain.lowerBound)
        let span = log10(domain.upperBound) - lo
        guard span > 0 else { return (from + to) / 2 }
        let v = log10(max(value, domain.lowerBound))
        return from + (v - lo) / span * (to - from)
    }

    /// The powers of ten in the domain; with fewer than three of them, also 2 and 5 times each.
    public func ticks() -> [Double] {
        let first = Int(log10(domain.lowerBound).rounded(.down))
        let last = Int(log10(domain.upperBound).rounded(.up))
        let inside = { (v: Double) in v >= domain.lowerBound * (1 - 1e-9) && v <= domain.upperBound * (1 + 1e-9) }
        let powers = (first...max(first, last)).map { pow(10, Double($0)) }.filter(inside)
        guard powers.count < 3 else { return powers }
        return (first...max(first, last)).flatMap { e in [1.0, 2, 5].map { $0 * pow(10, Double(e)) } }.filter(inside)
    }
}

/// Pure chart geometry (nice numbers, the Pareto front) and the SVG text of its pieces.
public enum SVGChart {
    /// A step of 1, 2 or 5 times a power of ten giving about `count` intervals over `span`.
    public static func niceStep(span: Double, count: Int) -> Double {
        guard span > 0, span.isFinite else { return 1 }
        let raw = span / Double(max(1, count))
        let magnitude = pow(10, log10(raw).rounded(.down))
        let normal = raw / magnitude
        let factor: Double = normal < 1.5 ? 1 : normal < 3 ? 2 : normal < 7 ? 5 : 10
        return factor * magnitude
    }

    /// `lo...hi` widened to multiples of the nice step (an empty span widened to one step).
    public static func niceDomain(_ lo: Double, _ hi: Double, count: Int) -> ClosedRange<Double> {
        var lo = lo
        var hi = hi
        if hi < lo { swap(&lo, &hi) }
        if hi == lo {
            let pad = lo == 0 ? 1 : abs(lo) * 0.1
            lo -= lo == 0 ? 0 : pad
            hi += pad
        }
        let step = niceStep(span: hi - lo, count: count)
        return ((lo / step).rounded(.down) * step)...((hi / step).rounded(.up) * step)
    }

    /// The multiples of the nice step within `lo...hi`.
    public static func niceTicks(_ lo: Double, _ hi: Double, count: Int) -> [Double] {
        guard hi > lo else { return [lo] }
        let step = niceStep(span: hi - lo, count: count)
        let first = Int((lo / step - 1e-9).rounded(.up))
        let last = Int((hi / step + 1e-9).rounded(.down))
        guard first <= last else { return [] }
        return (first...last).map { Double($0) * step }
    }

    /// The indices of the points no other point beats on both counts (less or equal `x`, more
    /// or equal `y`, one strictly), sorted by `x`; of equal points only the first is kept.
    /// Complexity: O(n log n).
    public static func paretoFront(_ points: [(x: Double, y: Double)]) -> [Int] {
        let order = points.indices.sorted { a, b in
            let p = points[a]
            let q = points[b]
            if p.x != q.x { return p.x < q.x }
            if p.y != q.y { return p.y > q.y }
            return a < b
        }
        var best = -Double.infinity
        var front: [Int] = []
        for i in order where points[i].y > best {
            front.append(i)
            best = points[i].y
        }
        return front
    }

    /// A curve joined linearly through `points` (ascending in x; flat past its ends), sampled for
    /// a log scale from `low` to `high`: at the points inside and at every 5 % step of x, so that its
    /// straight segments are drawn as the curves they are on that scale.
    public static func sampledOnLogScale(
        _ points: [(x: Double, y: Double)], from low: Double, to high: Double
    ) -> [(x: Double, y: Double)] {
        guard let first = points.first, let last = points.last, low > 0, high >= low else { return [] }
        func y(at x: Double) -> Double {
            if x <= first.x { return first.y }
            guard let i = points.firstIndex(where: { $0.x >= x }) else { return last.y }
            let (a, b) = (points[i - 1], points[i])
            return b.x == a.x ? b.y : a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x)
        }
        var xs = points.map(\.x).filter { $0 > low && $0 < high }
        var x = low
        while x < high {
            xs.append(x)
            x *= 1.05
        }
        xs.append(high)
        return Set(xs).sorted().map { (x: $0, y: y(at: $0)) }
    }

    /// A pixel coordinate rounded to one decimal, without a trailing `.0`.
    public static func n(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let r = (value * 10).rounded() / 10
        if r == r.rounded() { return String(Int(r)) }
        return String(format: "%.1f", r)
    }

    /// The `points` attribute of a polyline.
    public static func points(_ xy: [(x: Double, y: Double)]) -> String {
        xy.map { n($0.x) + "," + n($0.y) }.joined(separator: " ")
    }
}

/// The plotting area of one chart and its two scales: the frame, the grid, the ticks and the
/// axis titles as SVG text.
struct PlotFrame {
    var width: Double
    var height: Double
    var left: Double
    var right: Double
    var top: Double
    var bottom: Double

    init(width: Double, height: Double, left: Double = 64, right: Double = 20, top: Double = 14, bottom: Double = 46) {
        self.width = width
        self.height = height
        self.left = left
        self.right = right
        self.top = top
        self.bottom = bottom
    }

    var x0: Double { left }
    var x1: Double { width - right }
    var y0: Double { height - bottom }
    var y1: Double { top }

    /// The grid lines, tick labels, axes and axis titles.
    func axes(
        x: any ChartScale, y: any ChartScale, xTitle: String, yTitle: String, xLabel: (Double) -> String,
        yLabel: (Double) -> String
    ) -> String {
        let n = SVGChart.n
        var out = "<g class=\"axes\">"
        for t in x.ticks() {
            let px = n(x.position(t))
            out += "<line class=\"grid\" x1=\"\(px)\" x2=\"\(px)\" y1=\"\(n(y1))\" y2=\"\(n(y0))\"/>"
            out +=
                "<text class=\"tick\" x=\"\(px)\" y=\"\(n(y0 + 16))\" text-anchor=\"middle\">\(HTML.escape(xLabel(t)))</text>"
        }
        for t in y.ticks() {
            let py = n(y.position(t))
            out += "<line class=\"grid\" x1=\"\(n(x0))\" x2=\"\(n(x1))\" y1=\"\(py)\" y2=\"\(py)\"/>"
            out +=
                "<text class=\"tick\" x=\"\(n(x0 - 6))\" y=\"\(py)\" dy=\"0.32em\" text-anchor=\"end\">\(HTML.escape(yLabel(t)))</text>"
        }
        out += "<path class=\"axis\" d=\"M\(n(x0)) \(n(y1))V\(n(y0))H\(n(x1))\"/>"
        out +=
            "<text class=\"axis-title\" x=\"\(n((x0 + x1) / 2))\" y=\"\(n(height - 8))\" text-anchor=\"middle\">\(HTML.escape(xTitle))</text>"
        out +=
            "<text class=\"axis-title\" transform=\"translate(14 \(n((y0 + y1) / 2))) rotate(-90)\" text-anchor=\"middle\">\(HTML.escape(yTitle))</text>"
        return out + "</g>"
    }
}

/// Places point labels in a chart so that each stays inside the chart's box and clear of the
/// labels already placed and of every point: beside its point, to the right or the left, above or
/// below, further away when those are taken.
struct LabelPlacer {
    typealias Box = (x0: Double, y0: Double, x1: Double, y1: Double)
    var width: Double
    var height: Double
    /// What a label must not cover: the labels placed and the points.
    var taken: [Box] = []
    /// The points' centres.
    var points: [(x: Double, y: Double)] = []

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// A point the labels keep clear of.
    mutating func avoid(x: Double, y: Double, r: Double) {
        taken.append((x - r - 1, y - r - 1, x + r + 1, y + r + 1))
        points.append((x, y))
    }

    /// The distance from (`x`, `y`) to the nearest point of `box`.
    static func distance(_ x: Double, _ y: Double, _ box: Box) -> Double {
        let dx = max(box.x0 - x, 0, x - box.x1)
        let dy = max(box.y0 - y, 0, y - box.y1)
        return (dx * dx + dy * dy).squareRoot()
    }

    /// A `text` element naming the point at (`x`, `y`) of radius `r`, at the first free place
    /// (the name elided to at most `maxWidth`, its whole in the `<title>`); nil when every place
    /// is taken, unless `force`, when it goes to the first place inside the box. A label more than
    /// 10 units from its point, or about as near another point, is joined to its own by a leader
    /// line (`line.leader` with the same `data-name`).
    mutating func place(
        _ name: String, x: Double, y: Double, r: Double, cls: String = "label", maxWidth: Double = 200,
        force: Bool = false
    ) -> String? {
        let shown = HTML.fit(name, width: min(maxWidth, width - 8))
        let w = HTML.textWidth(shown)
        let gap = r + 3
        var candidates: [(x: Double, y: Double, anchor: String)] = []
        for k in 0...4 {
            let up = y - r - 2 - 13 * Double(k)
            let down = y + r + 11 + 13 * Double(k)
            candidates += [
                (x + gap, up, "start"), (x + gap, down, "start"), (x - gap, up, "end"), (x - gap, down, "end"),
            ]
        }
        func box(_ c: (x: Double, y: Double, anchor: String)) -> Box {
            let x0 = c.anchor == "end" ? c.x - w : c.x
            return (x0, c.y - 10, x0 + w, c.y + 3)
        }
        func inside(_ b: Box) -> Bool { b.x0 >= 1 && b.x1 <= width - 1 && b.y0 >= 1 && b.y1 <= height - 1 }
        func free(_ b: Box) -> Bool { !taken.contains { $0.x0 < b.x1 && b.x0 < $0.x1 && $0.y0 < b.y1 && b.y0 < $0.y1 } }
        guard
            let c = candidates.first(where: { inside(box($0)) && free(box($0)) })
                ?? (force ? candidates.first(where: { inside(box($0)) }) : nil)
        else { return nil }
        let placed = box(c)
        taken.append(placed)
        let n = SVGChart.n
        let own = Self.distance(x, y, placed)
        let ambiguous = points.contains { p in
            (abs(p.x - x) > 0.01 || abs(p.y - y) > 0.01) && Self.distance(p.x, p.y, placed) < own + 2
        }
        var leader = ""
        if own > 10 || ambiguous {
            // From the point's edge to the label's anchor side, level with the point where it can be.
            let ex = c.x
            let ey = min(max(y, c.y - 8), c.y)
            let len = ((ex - x) * (ex - x) + (ey - y) * (ey - y)).squareRoot()
            let sx = len > 0 ? x + (ex - x) / len * (r + 1) : x
            let sy = len > 0 ? y + (ey - y) / len * (r + 1) : y
            leader =
                "<line class=\"leader\" data-name=\"\(HTML.escape(name))\" x1=\"\(n(sx))\" y1=\"\(n(sy))\" "
                + "x2=\"\(n(ex))\" y2=\"\(n(ey))\"/>"
        }
        return leader + "<text class=\"\(cls)\" data-name=\"\(HTML.escape(name))\" x=\"\(n(c.x))\" y=\"\(n(c.y))\""
            + (c.anchor == "end" ? " text-anchor=\"end\"" : "")
            + "><title>\(HTML.escape(name))</title>\(HTML.escape(shown))</text>"
    }
}

/// HTML text helpers.
enum HTML {
    /// A name for an SVG label (SVG text does not wrap): at most `limit` characters, the rest
    /// elided (`…`), escaped; the whole name goes in the element's `<title>`.
    static func label(_ name: String, limit: Int = 40) -> String {
        escape(name.count > limit ? String(name.prefix(limit - 1)) + "…" : name)
    }

    /// `name` elided (`…`) to fit `width` units of an SVG label in `size`-unit type (by
    /// ``textWidth(_:size:)``), not escaped.
    static func fit(_ name: String, width: Double, size: Double = 11) -> String {
        guard textWidth(name, size: size) > width else { return name }
        var chars = Array(name)
        while !chars.isEmpty, textWidth(String(chars) + "…", size: size) > width { chars.removeLast() }
        return String(chars) + "…"
    }

    /// An upper estimate of the width of `text` in a proportional sans-serif of `size` units:
    /// narrow letters a third of the size, capitals and m, w most of it, other ASCII 0.6 of it,
    /// anything else (accents aside, CJK, symbols) the full size.
    static func textWidth(_ text: String, size: Double = 11) -> Double {
        var em = 0.0
        for c in text.unicodeScalars {
            switch c {
            case "i", "l", "j", "t", "f", "r", ".", ",", ":", ";", "'", "|", "!", "(", ")", "[", "]", " ", "I":
                em += 0.36
            case "m", "w", "M", "W", "@", "%": em += 0.92
            case "A"..."Z": em += 0.72
            default: em += c.isASCII ? 0.6 : 1.0
            }
        }
        return em * size
    }

    /// `text` safe in HTML text and in double- or single-quoted attribute values.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                if TextFormat.isControl(c) && c != "\n" && c != "\t" || TextFormat.isBidiControl(c) {
                    // Shown, not obeyed: a right-to-left override would reverse the text around it.
                    out += "⟨U+\(TextFormat.hex(c.value, 4).uppercased())⟩"
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out
    }
}
