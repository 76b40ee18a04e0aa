/// Turns key presses into held movement: terminals report presses (and auto-repeats), never
/// releases, so a direction counts as held for a short while after each press of it.
///
/// The first press holds a little longer, to bridge the pause before the terminal's
/// auto-repeat starts; repeats then keep it held until the key is let go.
package struct HeldKeys: Hashable, Sendable {
    /// Seconds a first press holds its direction.
    package var firstPressHold = 0.25
    /// Seconds each auto-repeat extends the hold.
    package var repeatHold = 0.12

    private var horizontalUntil = -Double.infinity
    private var horizontal = 0
    private var verticalUntil = -Double.infinity
    private var vertical = 0
    private var firesNextTick = false
    private var firesRailNextTick = false

    /// Creates an empty set of held keys.
    package init() {}

    /// Takes in one key pressed at `time` (seconds on any steady clock).
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - time: When it arrived.
    package mutating func press(_ key: Key, at time: Double) {
        switch key {
        case .character("w"), .character("W"), .up: hold(vertical: -1, at: time)
        case .character("s"), .character("S"), .down: hold(vertical: 1, at: time)
        case .character("a"), .character("A"), .left: hold(horizontal: -1, at: time)
        case .character("d"), .character("D"), .right: hold(horizontal: 1, at: time)
        case .space, .character("f"), .character("F"): firesNextTick = true
        case .character("e"), .character("E"): firesRailNextTick = true
        default: break
        }
    }

    /// The input for a tick at `time`: held directions, and fire (or the rail) if pressed since the last tick.
    ///
    /// - Parameter time: Now, on the same clock as the presses.
    /// - Returns: The input.
    package mutating func input(at time: Double) -> ArenaInput {
        let input = ArenaInput(
            moveX: time < horizontalUntil ? horizontal : 0, moveY: time < verticalUntil ? vertical : 0, fires: firesNextTick,
            firesRail: firesRailNextTick
        )
        firesNextTick = false
        firesRailNextTick = false
        return input
    }

    private mutating func hold(horizontal direction: Int, at time: Double) {
        let isRepeat = direction == horizontal && time < horizontalUntil
        horizontal = direction
        horizontalUntil = time + (isRepeat ? repeatHold : firstPressHold)
        // A horizontal press after a vertical one ends the vertical hold: the last key wins.
        if time >= verticalUntil - repeatHold { verticalUntil = min(verticalUntil, time) }
    }

    private mutating func hold(vertical direction: Int, at time: Double) {
        let isRepeat = direction == vertical && time < verticalUntil
        vertical = direction
        verticalUntil = time + (isRepeat ? repeatHold : firstPressHold)
        if time >= horizontalUntil - repeatHold { horizontalUntil = min(horizontalUntil, time) }
    }
}
