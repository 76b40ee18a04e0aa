import Testing

@testable import TickwireWebSocket

@Suite("Base64")
struct Base64Tests {
    @Test(
        "RFC 4648 vectors encode and decode",
        arguments: [
            ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
        ])
    func vectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded, "'\(plain)' must encode as RFC 4648 says")
        #expect(Base64.decode(encoded) == Array(plain.utf8), "'\(encoded)' must decode back to '\(plain)'")
    }

    @Test("all byte values round-trip")
    func allBytes() {
        let all = (0...255).map { UInt8($0) }
        #expect(Base64.decode(Base64.encode(all)) == all, "every byte value must survive a round trip")
    }

    @Test("non-canonical or malformed text is refused", arguments: ["Zg=", "Zg=a", "Z===", "Zh==", "Zm9=", "@@@@", "Zm9v\n", "Zg==Zg=="])
    func refused(text: String) {
        #expect(Base64.decode(text) == nil, "'\(text)' is not canonical padded Base64 and must be refused")
    }
}
