import Foundation

extension WorkflowError {
    /// A message as the one line a front end shows: its lines trimmed and joined with spaces
    /// (unchanged when it is one line already).
    public static func oneLine(_ message: String) -> String {
        guard message.contains(where: \.isNewline) else { return message }
        return message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }
}
