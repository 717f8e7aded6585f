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
    /// How often people open this app when they pick up the phone or move on within a session
    /// (relative weight).
    public var popularity: Double = 1
}

public enum AppCatalog {
    public static let apps: [AppTemplate] = [
        AppTemplate(
            name: "com.example.news",
            content: ContentProcess(
                kind: .interval, timeZone: "America/New_York", minMinutes: 20, maxMinutes: 40, activeFrom: 360,
                activeTo: 1380, nightMinutes: 150),
            kind: .routine, peakMinutes: [450, 720, 1140], sessionMinutes: 4, popularity: 1.5),
        AppTemplate(
            name: "com.example.weather", content: ContentProcess(kind: .hourly), kind: .routine,
            peakMinutes: [420, 1290], sessionMinutes: 1, popularity: 0.6),
        AppTemplate(
            name: "com.example.digest",
            content: ContentProcess(kind: .daily, timeZone: "Europe/London", minutes: [360], jitterMinutes: 0),
            kind: .routine, peakMinutes: [420, 480], sessionMinutes: 5, popularity: 0.5),
        AppTemplate(
            name: "com.example.social", content: ContentProcess(kind: .poisson, meanMinutes: 2), kind: .burst,
            burstsPerDay: 4, sessionMinutes: 3, popularity: 4),
        AppTemplate(
            name: "com.example.messages", content: ContentProcess(kind: .poisson, meanMinutes: 5), kind: .burst,
            burstsPerDay: 5, sessionMinutes: 1.5, popularity: 5),
        AppTemplate(
            name: "com.example.mail", content: ContentProcess(kind: .poisson, meanMinutes: 20), kind: .routine,
            peakMinutes: [525, 810, 1020], sessionMinutes: 3, popularity: 2),
        AppTemplate(
            name: "com.example.podcast",
            content: ContentProcess(
                kind: .daily, timeZone: "America/Los_Angeles", minutes: [300, 900], jitterMinutes: 30),
            kind: .routine, peakMinutes: [495, 1065], commute: true, sessionMinutes: 8, popularity: 0.6),
        AppTemplate(
            name: "com.example.music",
            content: ContentProcess(kind: .weekly, timeZone: "UTC", minutes: [0], weekday: 6),
            kind: .routine, peakMinutes: [490, 1070], commute: true, sessionMinutes: 6, popularity: 1),
        AppTemplate(
            name: "com.example.bank", content: ContentProcess(kind: .poisson, meanMinutes: 1440), kind: .irregular,
            ratePerDay: 0.5, sessionMinutes: 2, popularity: 0.5),
        AppTemplate(
            name: "com.example.maps", content: ContentProcess(kind: .poisson, meanMinutes: 10080), kind: .irregular,
            ratePerDay: 0.3, sessionMinutes: 6, popularity: 0.6),
        AppTemplate(
            name: "com.example.fitness",
            content: ContentProcess(kind: .daily, timeZone: "UTC", minutes: [240], jitterMinutes: 10),
            kind: .routine, peakMinutes: [390, 1110], sessionMinutes: 12, popularity: 0.4),
        AppTemplate(
            name: "com.example.game",
            content: ContentProcess(kind: .weekly, timeZone: "Asia/Tokyo", minutes: [600], weekday: 2),
            kind: .routine, peakMinutes: [1290, 780], sessionMinutes: 10, popularity: 1),
        AppTemplate(
            name: "com.example.chat", content: ContentProcess(kind: .poisson, meanMinutes: 8), kind: .burst,
            burstsPerDay: 3, sessionMinutes: 1.5, popularity: 3),
        AppTemplate(
            name: "com.example.browser", content: ContentProcess(kind: .poisson, meanMinutes: 60), kind: .irregular,
            ratePerDay: 2, sessionMinutes: 3, popularity: 2.5),
        AppTemplate(
            name: "com.example.video", content: ContentProcess(kind: .poisson, meanMinutes: 30), kind: .routine,
            peakMinutes: [1230, 1290, 780], sessionMinutes: 9, popularity: 1.5),
        AppTemplate(
            name: "com.example.camera", content: ContentProcess(kind: .poisson, meanMinutes: 10080), kind: .irregular,
            ratePerDay: 0.8, sessionMinutes: 1, popularity: 1),
        AppTemplate(
            name: "com.example.shopping",
            content: ContentProcess(kind: .daily, timeZone: "UTC", minutes: [0], jitterMinutes: 5), kind: .irregular,
            ratePerDay: 0.6, sessionMinutes: 4, popularity: 0.8),
        AppTemplate(
            name: "com.example.calendar", content: ContentProcess(kind: .poisson, meanMinutes: 720), kind: .routine,
            peakMinutes: [470, 1260], sessionMinutes: 1, popularity: 0.7),
    ]

    public static func template(_ name: String) -> AppTemplate? { apps.first { $0.name == name } }
}
