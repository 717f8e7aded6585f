import FetchLabReport
import Testing

@Suite struct TextFormatPluralTests {
    @Test func countsTakeTheirNounInTheRightNumber() {
        #expect(TextFormat.counted(1, "user") == "1 user")
        #expect(TextFormat.counted(2, "user") == "2 users")
        #expect(TextFormat.counted(0, "launch") == "0 launches")
        #expect(TextFormat.counted(1, "launch") == "1 launch")
        #expect(TextFormat.counted(1_234, "held-out user-day") == "1,234 held-out user-days")
        #expect(TextFormat.counted(3, "reply", plural: "replies") == "3 replies")
    }
}
