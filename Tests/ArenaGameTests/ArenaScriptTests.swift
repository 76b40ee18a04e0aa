import Testing

@testable import ArenaGame

@Suite("ArenaScript")
struct ArenaScriptTests {
    @Test("words become inputs held for their tick counts")
    func parsing() throws {
        let script = try ArenaScript("d5 w3 space _2 wdf")
        #expect(script.duration == 5 + 3 + 1 + 2 + 1)
        #expect(script.input(atTick: 0) == ArenaInput(moveX: 1, moveY: 0, fires: false))
        #expect(script.input(atTick: 4) == ArenaInput(moveX: 1, moveY: 0, fires: false))
        #expect(script.input(atTick: 5) == ArenaInput(moveX: 0, moveY: -1, fires: false))
        #expect(script.input(atTick: 8) == ArenaInput(moveX: 0, moveY: 0, fires: true))
        #expect(script.input(atTick: 9) == .idle)
        #expect(script.input(atTick: 11) == ArenaInput(moveX: 1, moveY: -1, fires: true))
        #expect(script.input(atTick: 12) == .idle, "after the script the player stands still")
    }

    @Test("unreadable words are refused with the word named", arguments: ["x3", "d0", "d-1", "5", "d99999", "w3x"])
    func refused(word: String) {
        #expect(throws: ArenaScript.ParseError(word: word)) { try ArenaScript("d1 \(word)") }
    }
}
