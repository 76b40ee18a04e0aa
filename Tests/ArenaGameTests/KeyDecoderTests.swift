import ArenaGame
import Testing

@Suite("KeyDecoder")
struct KeyDecoderTests {
    @Test("letters, space, enter and Ctrl-C decode to their keys")
    func plainKeys() {
        var decoder = KeyDecoder()
        #expect(
            decoder.decode(Array("wasd q".utf8) + [0x0D, 0x03]) == [
                .character("w"), .character("a"), .character("s"), .character("d"), .space, .character("q"), .enter, .interrupt,
            ])
    }

    @Test("arrow keys decode in CSI and SS3 forms")
    func arrows() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B, 0x5B, 0x41, 0x1B, 0x5B, 0x42, 0x1B, 0x4F, 0x43, 0x1B, 0x4F, 0x44]) == [.up, .down, .right, .left])
    }

    @Test("an escape sequence split across reads is completed by the next read")
    func splitSequence() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]).isEmpty)
        #expect(decoder.decode([0x5B]).isEmpty)
        #expect(decoder.decode([0x41, UInt8(ascii: "x")]) == [.up, .character("x")])
    }

    @Test("a lone escape is reported once the read times out")
    func loneEscape() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([0x1B]).isEmpty)
        #expect(decoder.flushPendingEscape() == [.escape])
        #expect(decoder.flushPendingEscape().isEmpty)
    }

    @Test("unknown sequences, other control bytes and non-ASCII bytes are skipped")
    func skipped() {
        var decoder = KeyDecoder()
        // F5 (ESC [ 1 5 ~), a tab, a UTF-8 "é", then "w".
        #expect(decoder.decode([0x1B, 0x5B, 0x31, 0x35, 0x7E, 0x09, 0xC3, 0xA9, UInt8(ascii: "w")]) == [.character("w")])
    }
}
