import FetchLabReport
import FetchLabTerminal
import FetchLabWorkflows

extension Terminal {
    /// A message that may hold SQL spread over lines (SQLite's errors quote the statement) as one
    /// line: each line break and the indentation around it become one space.
    static func oneLine(_ message: String) -> String {
        WorkflowError.oneLine(message)
    }
}

/// A workflow's progress (``WorkProgress``) as this bar: its total set when the work begins.
extension ProgressBar: WorkProgress {
    convenience init(unit: String) { self.init(total: 0, unit: unit) }
    public func begin(total: Int) { extend(total: total) }
    public func advance() { advance(by: 1) }
    public func end() { finish() }
}

/// Number formatting shared by the renderers: the report module's.
typealias Format = TextFormat
