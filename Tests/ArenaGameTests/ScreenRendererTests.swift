import ArenaGame
import Testing

@Suite("ScreenBuffer and ScreenRenderer")
struct ScreenRendererTests {
    @Test("writing outside the buffer is clipped, not a crash")
    func clipping() {
        var buffer = ScreenBuffer(width: 4, height: 2)
        buffer.write("abcdef", column: 2, row: 1)
        buffer.write("zz", column: -1, row: 0)
        buffer.write("never", column: 0, row: 5)
        #expect(buffer.plainText == "z\n  ab")
    }

    @Test("the first frame is drawn whole, an unchanged frame draws nothing, a changed row is redrawn alone")
    func diffing() {
        var renderer = ScreenRenderer(usesColor: false)
        var frame = ScreenBuffer(width: 3, height: 2)
        frame.write("abc", column: 0, row: 0)
        frame.write("def", column: 0, row: 1)
        #expect(renderer.render(frame) == "\u{1B}[0m\u{1B}[2J\u{1B}[1;1Habc\u{1B}[2;1Hdef")
        #expect(renderer.render(frame).isEmpty)
        frame.write("x", column: 1, row: 1)
        #expect(renderer.render(frame) == "\u{1B}[2;1Hdxf")
    }

    @Test("colours are written as SGR codes, and never with NO_COLOR")
    func colours() {
        var frame = ScreenBuffer(width: 2, height: 1)
        frame[0, 0] = ScreenCell(character: "@", color: .green, isBold: true)
        var coloured = ScreenRenderer(usesColor: true)
        #expect(coloured.render(frame).contains("\u{1B}[0;32;1m@"))
        var plain = ScreenRenderer(usesColor: false)
        #expect(!plain.render(frame).contains("32"))
    }
}
