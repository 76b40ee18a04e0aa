import ArenaGame
import Testing

@Suite("HeldKeys")
struct HeldKeysTests {
    @Test("a press holds its direction for a while, auto-repeats keep it held, and it ends after the last one")
    func holding() {
        var keys = HeldKeys()
        keys.press(.character("d"), at: 0)
        #expect(keys.input(at: 0.1) == ArenaInput(moveX: 1, moveY: 0, fires: false))
        #expect(keys.input(at: 0.3) == .idle, "a single tap holds for firstPressHold only")
        for step in 0..<10 { keys.press(.right, at: 1 + Double(step) * 0.033) }
        #expect(keys.input(at: 1.35) == ArenaInput(moveX: 1, moveY: 0, fires: false))
        #expect(keys.input(at: 1.5) == .idle)
    }

    @Test("fire lasts one tick; the last direction key wins")
    func fireAndLastKeyWins() {
        var keys = HeldKeys()
        keys.press(.character("w"), at: 0)
        keys.press(.space, at: 0.01)
        #expect(keys.input(at: 0.02) == ArenaInput(moveX: 0, moveY: -1, fires: true))
        #expect(keys.input(at: 0.05).fires == false)
        keys.press(.character("a"), at: 0.2)
        #expect(keys.input(at: 0.21) == ArenaInput(moveX: -1, moveY: 0, fires: false))
    }
}
