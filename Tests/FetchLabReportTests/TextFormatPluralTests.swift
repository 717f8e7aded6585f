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

@Suite struct TextFormatSizeTests {
    @Test func bytesUsePowersOfAThousand() {
        #expect(TextFormat.bytes(999) == "999 B")
        #expect(TextFormat.bytes(1_500) == "1.5 KB")
        #expect(TextFormat.bytes(208_100_000) == "208.1 MB")
    }

    @Test func jsonIsSortedAndStable() {
        struct Row: Encodable {
            var b = 1
            var a = "x/y"
        }
        #expect(TextFormat.json(Row()) == "{\n  \"a\" : \"x/y\",\n  \"b\" : 1\n}")
    }
}
