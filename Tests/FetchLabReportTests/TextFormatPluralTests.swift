import FetchLabReport
import Foundation
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

    /// A number JSON cannot hold is written as a string where it stands; the document used to be
    /// replaced by `{}` without a word.
    @Test func aNumberJSONCannotHoldKeepsTheRestOfTheDocument() throws {
        struct Row: Encodable {
            var fresh = Double.nan
            var energy = Double.infinity
            var name = "fixed(1h)"
        }
        let text = TextFormat.json(Row())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["fresh"] as? String == "NaN" && object["energy"] as? String == "Infinity")
        #expect(object["name"] as? String == "fixed(1h)")
        // An encode(to:) that fails: one JSON object saying so.
        struct Failing: Encodable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue("\"quoted\"", .init(codingPath: [], debugDescription: "no"))
            }
        }
        let failed = try #require(
            try JSONSerialization.jsonObject(with: Data(TextFormat.json(Failing()).utf8)) as? [String: String])
        #expect(failed["error"]?.hasPrefix("cannot encode the output") == true)
    }
}
