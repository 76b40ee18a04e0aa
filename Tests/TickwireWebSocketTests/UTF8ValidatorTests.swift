import Testing
import TickwireCodec
import TickwireFoundation

@testable import TickwireWebSocket

@Suite("UTF8Validator")
struct UTF8ValidatorTests {
    /// (name, bytes, valid) in the style of Autobahn's 6.x cases.
    static let table: [(String, String, Bool)] = [
        ("empty", "", true),
        ("ASCII", "48656c6c6f", true),
        ("Hello-µ@ßöäüàá-UTF-8!!", "cebae1bdb9cf83cebcceb5eda080656469746564", false),
        ("κόσμε", "cebae1bdb9cf83cebcceb5", true),
        ("smallest 2-byte U+0080", "c280", true),
        ("smallest 3-byte U+0800", "e0a080", true),
        ("smallest 4-byte U+10000", "f0908080", true),
        ("largest U+10FFFF", "f48fbfbf", true),
        ("U+FFFF noncharacter is still UTF-8", "efbfbf", true),
        ("U+D7FF before the surrogates", "ed9fbf", true),
        ("U+E000 after the surrogates", "ee8080", true),
        ("just past U+10FFFF", "f4908080", false),
        ("F5 lead byte", "f5808080", false),
        ("FF byte", "ff", false),
        ("FE byte", "fe", false),
        ("lone continuation 80", "80", false),
        ("lone continuation BF", "bf", false),
        ("overlong '/' in 2 bytes", "c0af", false),
        ("overlong '/' in 3 bytes", "e080af", false),
        ("overlong '/' in 4 bytes", "f08080af", false),
        ("overlong NUL C1 BF", "c1bf", false),
        ("largest overlong 3-byte", "e09fbf", false),
        ("largest overlong 4-byte", "f08fbfbf", false),
        ("high surrogate U+D800", "eda080", false),
        ("low surrogate U+DFFF", "edbfbf", false),
        ("surrogate pair in CESU-8", "eda0bdedb2a9", false),
        ("truncated 2-byte at end", "48c2", false),
        ("truncated 3-byte at end", "48e0a0", false),
        ("truncated 4-byte at end", "48f09080", false),
        ("lead byte followed by ASCII", "c241", false),
        ("5-byte form", "f888808080", false),
    ]

    @Test("validation table: overlongs, surrogates, > U+10FFFF, truncation", arguments: 0..<31)
    func table(index: Int) {
        let (name, hex, valid) = Self.table[index]
        let data = bytes(hex: hex)
        let result = data.withUnsafeBytes { UTF8Validator.isValid($0) }
        #expect(result == valid, "\(name) (\(hex)) should be \(valid ? "valid" : "invalid") UTF-8")
    }

    @Test("splitting the input at every point gives the same verdict (fragment boundaries)")
    func splits() {
        for (name, hex, valid) in Self.table {
            let data = bytes(hex: hex)
            for split in 0...data.count {
                var validator = UTF8Validator()
                let first = validator.validate(Array(data[..<split]))
                let second = first && validator.validate(Array(data[split...]))
                #expect((second && validator.isComplete) == valid, "\(name) split at \(split) must keep its verdict")
            }
        }
    }

    @Test("invalid input is refused at the first bad byte, before the rest arrives (fail fast)")
    func failFast() {
        var validator = UTF8Validator()
        let firstFragment = validator.validate(Array("κόσμε".utf8))
        #expect(firstFragment, "a valid first fragment is accepted")
        let lead = validator.validate([0xED])
        #expect(lead, "ED could still start a valid sequence")
        let surrogate = validator.validate([0xA0])
        #expect(!surrogate, "ED A0 is a surrogate: refuse at this byte")
        let more = validator.validate(Array("more".utf8))
        #expect(!more, "once failed, the validator stays failed")
        #expect(validator.hasFailed)
        var truncated = UTF8Validator()
        let partial = truncated.validate([0xF0, 0x90])
        #expect(partial, "a 4-byte sequence cut after two bytes is not yet wrong")
        #expect(!truncated.isComplete, "but it is not complete either: the message must not end here")
    }

    @Test("agrees with the standard library on seeded random byte strings")
    func agreesWithStandardLibrary() {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<3000 {
            let length = Int.random(in: 0...24, using: &generator)
            // Bias toward high bytes so that multi-byte sequences are common.
            let data = (0..<length).map { _ in
                Bool.random(using: &generator)
                    ? UInt8.random(in: 0x80...0xF5, using: &generator) : UInt8.random(in: 0...255, using: &generator)
            }
            let ours = data.withUnsafeBytes { UTF8Validator.isValid($0) }
            let reference = String(validating: data, as: UTF8.self) != nil
            #expect(ours == reference, "verdicts differ for \(hexString(data))")
        }
    }

    @Test("long ASCII runs with one bad byte at every position are caught (fast path edges)")
    func asciiFastPathEdges() {
        for position in 0..<40 {
            var data = [UInt8](repeating: UInt8(ascii: "a"), count: 40)
            data[position] = 0xFF
            #expect(!data.withUnsafeBytes { UTF8Validator.isValid($0) }, "0xFF at \(position) must be found")
        }
    }
}
