/// What one player asks for in one tick: a direction to move, whether to shoot, and whether to
/// fire the rail (an instant ray along the player's facing, resolved with lag compensation).
///
/// Both sides run the same movement rules on these, so the client can predict its own
/// player. On the wire an input is one byte (see ``encoded``).
package struct ArenaInput: Hashable, Sendable {
    /// Horizontal direction: -1 (left), 0 or 1 (right).
    package var moveX: Int8
    /// Vertical direction: -1 (up), 0 or 1 (down).
    package var moveY: Int8
    /// Whether the player fires this tick (weapons have a cool-down).
    package var fires: Bool
    /// Whether the player fires the rail this tick (it has a longer cool-down,
    /// ``ArenaRules/railInterval``).
    package var firesRail: Bool

    /// No movement, no fire.
    package static let idle = ArenaInput(moveX: 0, moveY: 0, fires: false)

    /// Creates an input; directions are clamped to -1...1.
    ///
    /// - Parameters:
    ///   - moveX: Horizontal direction.
    ///   - moveY: Vertical direction.
    ///   - fires: Whether the player shoots a bullet.
    ///   - firesRail: Whether the player fires the rail.
    package init(moveX: Int, moveY: Int, fires: Bool, firesRail: Bool = false) {
        self.moveX = Int8(min(max(moveX, -1), 1))
        self.moveY = Int8(min(max(moveY, -1), 1))
        self.fires = fires
        self.firesRail = firesRail
    }

    /// The input as one byte: bits 0–1 hold moveX + 1, bits 2–3 moveY + 1, bit 4 fire, bit 5 rail.
    package var encoded: [UInt8] {
        [UInt8(moveX + 1) | UInt8(moveY + 1) << 2 | (fires ? 0x10 : 0) | (firesRail ? 0x20 : 0)]
    }

    /// Decodes an input written by ``encoded``; anything else is read as ``idle``, since a
    /// malformed input must not stop the server.
    ///
    /// - Parameter bytes: The encoded input.
    package init(decoding bytes: [UInt8]) {
        guard bytes.count == 1, bytes[0] & 0xC0 == 0, bytes[0] & 0x03 != 3, (bytes[0] >> 2) & 0x03 != 3 else {
            self = .idle
            return
        }
        self.init(
            moveX: Int(bytes[0] & 0x03) - 1, moveY: Int((bytes[0] >> 2) & 0x03) - 1, fires: bytes[0] & 0x10 != 0,
            firesRail: bytes[0] & 0x20 != 0)
    }
}
