import FetchLabCore

/// Parses policy names as people type them: `never`, `oracle`, `fixed(15m)`, `budget-oracle(4)`,
/// lists in one name (`fixed(15m,1h)`, `budget-oracle(1,2,4)`) and comma-separated lists of names.
public enum PolicyRegistry {
    /// The seven fixed intervals the base of gap closed is chosen from.
    public static let fixedIntervals: [Microseconds] = [
        .minutes(15), .minutes(30), .hours(1), .hours(2), .hours(4), .hours(8), .hours(24),
    ]
    /// The daily budgets of the clairvoyant frontier.
    public static let frontierBudgets = [1, 2, 4, 8, 16]

    /// never, the seven fixed intervals, oracle, budget-oracle(1, 2, 4, 8, 16), in that order.
    public static var defaults: [any FetchPolicy] {
        [NeverPolicy()] + fixedIntervals.map { FixedIntervalPolicy(interval: $0) } + [OraclePolicy()]
            + frontierBudgets.map { BudgetOraclePolicy(budget: $0) }
    }

    /// The forms the registry reads, for error messages.
    public static let forms =
        "never, fixed(T) (e.g. fixed(15m), fixed(1h,4h)), oracle, budget-oracle(k) (e.g. budget-oracle(1,2,4))"

    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public var message: String
        public var description: String { message }
    }

    /// Parses a comma-separated list (commas inside parentheses belong to the name); duplicates
    /// are dropped, the first kept.
    public static func parseList(_ text: String) throws(ParseError) -> [any FetchPolicy] {
        var items: [String] = []
        var current = ""
        var depth = 0
        for c in text {
            if c == "(" { depth += 1 }
            if c == ")" { depth -= 1 }
            if c == "," && depth == 0 {
                items.append(current)
                current = ""
            } else {
                current.append(c)
            }
        }
        items.append(current)
        var out: [any FetchPolicy] = []
        var seen = Set<String>()
        for item in items {
            for p in try parse(item) where seen.insert(p.name).inserted { out.append(p) }
        }
        guard !out.isEmpty else { throw ParseError(message: "no policy given; expected \(forms)") }
        return out
    }

    /// Parses one name (which may expand to several policies).
    public static func parse(_ raw: String) throws(ParseError) -> [any FetchPolicy] {
        let text = String(raw.lowercased().filter { !$0.isWhitespace })
        let family: String
        var arguments: [String] = []
        if let open = text.firstIndex(of: "(") {
            guard text.hasSuffix(")") else { throw ParseError(message: "policy '\(raw)': missing ')'") }
            family = String(text[..<open])
            arguments = text[text.index(after: open)..<text.index(before: text.endIndex)]
                .split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        } else if let colon = text.firstIndex(of: ":") {
            family = String(text[..<colon])
            arguments = [String(text[text.index(after: colon)...])]
        } else {
            family = text
        }
        switch family {
        case "never", "none":
            guard arguments.isEmpty else { throw ParseError(message: "policy '\(raw)': never takes no parameter") }
            return [NeverPolicy()]
        case "oracle":
            guard arguments.isEmpty else { throw ParseError(message: "policy '\(raw)': oracle takes no parameter") }
            return [OraclePolicy()]
        case "fixed":
            guard !arguments.isEmpty else {
                throw ParseError(message: "policy '\(raw)': fixed needs an interval, e.g. fixed(15m)")
            }
            return try arguments.map { (a: String) throws(ParseError) -> any FetchPolicy in
                guard let us = Quantity.duration(a), us >= .seconds(1), us <= .days(365) else {
                    throw ParseError(
                        message: "policy '\(raw)': '\(a)' is not an interval from 1s to 365d (e.g. 15m, 1h, 24h)")
                }
                return FixedIntervalPolicy(interval: us)
            }
        case "budget-oracle", "budgetoracle", "budget_oracle":
            guard !arguments.isEmpty else {
                throw ParseError(message: "policy '\(raw)': budget-oracle needs a daily budget, e.g. budget-oracle(4)")
            }
            return try arguments.map { (a: String) throws(ParseError) -> any FetchPolicy in
                guard let k = Int(a), (1...10_000).contains(k) else {
                    throw ParseError(message: "policy '\(raw)': '\(a)' is not a daily budget from 1 to 10000")
                }
                return BudgetOraclePolicy(budget: k)
            }
        default:
            throw ParseError(message: "unknown policy '\(text)'; expected \(forms)")
        }
    }
}
