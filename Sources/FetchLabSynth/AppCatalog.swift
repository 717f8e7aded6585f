/// The apps a synthetic population uses: how their content updates, and the habits people
/// typically have with them (each user's habit is drawn around these).
public struct AppTemplate: Sendable {
    public var name: String
    public var content: ContentProcess
    public var kind: HabitKind
    /// Candidate routine times (local minutes) a user picks one or two of.
    public var peakMinutes: [Int] = []
    /// Routine habits that follow the working week (a commute) are weekday-only more often.
    public var commute = false
    public var burstsPerDay: Double = 0
    public var ratePerDay: Double = 0
    public var sessionMinutes: Double
}

public enum AppCatalog {
    public static let apps: [AppTemplate] = [
        AppTemplate(
            name: "com.example.news",
            content: ContentProcess(
                kind: .interval, timeZone: "America/New_York", minMinutes: 20, maxMinutes: 40, activeFrom: 360,
                activeTo: 1380, nightMinutes: 150),
            kind: .routine, peakMinutes: [450, 720, 1140], sessionMinutes: 4),
        AppTemplate(
            name: "com.example.weather", content: ContentProcess(kind: .hourly), kind: .routine,
            peakMinutes: [420, 1290], sessionMinutes: 1),
        AppTemplate(
            name: "com.example.digest",
            content: ContentProcess(kind: .daily, timeZone: "Europe/London", minutes: [360], jitterMinutes: 0),
            kind: .routine, peakMinutes: [420, 480], sessionMinutes: 5),
        AppTemplate(
            name: "com.example.social", content: ContentProcess(kind: .poisson, meanMinutes: 2), kind: .burst,
            burstsPerDay: 4, sessionMinutes: 3),
        AppTemplate(
            name: "com.example.messages", content: ContentProcess(kind: .poisson, meanMinutes: 5), kind: .burst,
            burstsPerDay: 5, sessionMinutes: 1.5),
        AppTemplate(
            name: "com.example.mail", content: ContentProcess(kind: .poisson, meanMinutes: 20), kind: .routine,
            peakMinutes: [525, 810, 1020], sessionMinutes: 3),
        AppTemplate(
            name: "com.example.podcast",
            content: ContentProcess(
                kind: .daily, timeZone: "America/Los_Angeles", minutes: [300, 900], jitterMinutes: 30),
            kind: .routine, peakMinutes: [495, 1065], commute: true, sessionMinutes: 25),
        AppTemplate(
            name: "com.example.music",
            content: ContentProcess(kind: .weekly, timeZone: "UTC", minutes: [0], weekday: 6),
            kind: .routine, peakMinutes: [490, 1070], commute: true, sessionMinutes: 20),
        AppTemplate(
            name: "com.example.bank", content: ContentProcess(kind: .poisson, meanMinutes: 1440), kind: .irregular,
            ratePerDay: 0.5, sessionMinutes: 2),
        AppTemplate(
            name: "com.example.maps", content: ContentProcess(kind: .poisson, meanMinutes: 10080), kind: .irregular,
            ratePerDay: 0.3, sessionMinutes: 6),
        AppTemplate(
            name: "com.example.fitness",
            content: ContentProcess(kind: .daily, timeZone: "UTC", minutes: [240], jitterMinutes: 10),
            kind: .routine, peakMinutes: [390, 1110], sessionMinutes: 30),
        AppTemplate(
            name: "com.example.game",
            content: ContentProcess(kind: .weekly, timeZone: "Asia/Tokyo", minutes: [600], weekday: 2),
            kind: .routine, peakMinutes: [1290, 780], sessionMinutes: 15),
    ]

    public static func template(_ name: String) -> AppTemplate? { apps.first { $0.name == name } }
}
