/// Draws an ``ArenaScene`` into a ``ScreenBuffer`` of any size.
///
/// Layout at 80×24 and above: the map on the left, the scoreboard on the right, the
/// status and key lines below. A terminal smaller than the map shows the part around the
/// local player; a larger one centres everything.
package enum ArenaRenderer {
    /// Columns of the scoreboard panel.
    static let panelWidth = 21
    /// Rows below the map: status, keys, notice.
    static let footerHeight = 3
    /// Colours of the other players, by id.
    static let palette: [TerminalColor] = [.cyan, .magenta, .yellow, .blue, .red, .white]

    /// Draws a frame.
    ///
    /// - Parameters:
    ///   - scene: What to draw.
    ///   - width: The terminal's columns.
    ///   - height: The terminal's rows.
    /// - Returns: The frame.
    package static func render(_ scene: ArenaScene, width: Int, height: Int) -> ScreenBuffer {
        var screen = ScreenBuffer(width: width, height: height)
        let map = scene.map
        let viewWidth = min(map.width, max(width - panelWidth - 1, 20))
        let viewHeight = min(map.height, max(height - footerHeight, 5))
        let local = scene.localPlayerID.flatMap { id in scene.players.first { $0.id == id } }
        // The camera: the whole map when it fits, else a window that follows the local player.
        let originX = cameraOrigin(center: local?.x, view: viewWidth, world: map.width)
        let originY = cameraOrigin(center: local?.y, view: viewHeight, world: map.height)
        let totalWidth = viewWidth + 1 + panelWidth
        let left = max((width - totalWidth) / 2, 0)
        let top = max((height - viewHeight - footerHeight) / 2, 0)

        for row in 0..<viewHeight {
            for column in 0..<viewWidth where map.isWall(column: originX + column, row: originY + row) {
                screen[left + column, top + row] = ScreenCell(character: "#", color: .grey)
            }
        }
        for rail in scene.rails {
            // The trace, one cell every half tile along the ray, under bullets and players.
            let length = ((rail.endX - rail.x) * (rail.endX - rail.x) + (rail.endY - rail.y) * (rail.endY - rail.y)).squareRoot()
            let steps = Int((length * 2).rounded(.up))
            for step in 0...steps {
                let fraction = steps == 0 ? 0 : Double(step) / Double(steps)
                let column = Int((rail.x + (rail.endX - rail.x) * fraction).rounded(.down)) - originX
                let row = Int((rail.y + (rail.endY - rail.y) * fraction).rounded(.down)) - originY
                guard column >= 0, column < viewWidth, row >= 0, row < viewHeight else { continue }
                screen[left + column, top + row] = ScreenCell(character: "~", color: .cyan)
            }
        }
        for bullet in scene.bullets {
            let column = Int(bullet.x.rounded(.down)) - originX, row = Int(bullet.y.rounded(.down)) - originY
            guard column >= 0, column < viewWidth, row >= 0, row < viewHeight else { continue }
            screen[left + column, top + row] = ScreenCell(character: "*", color: .brightYellow)
        }
        for player in scene.players.sorted(by: {
            ($0.id == scene.localPlayerID ? 1 : 0, $0.id) < ($1.id == scene.localPlayerID ? 1 : 0, $1.id)
        }) {
            let column = Int(player.x.rounded(.down)) - originX, row = Int(player.y.rounded(.down)) - originY
            guard column >= 0, column < viewWidth, row >= 0, row < viewHeight else { continue }
            let isLocal = player.id == scene.localPlayerID
            let glyph: Character = player.health > 0 ? arrow(for: player.heading) : "x"
            let color: TerminalColor = isLocal ? .green : palette[Int(player.id) % palette.count]
            screen[left + column, top + row] = ScreenCell(character: glyph, color: color, isBold: isLocal)
        }
        drawScoreboard(scene, into: &screen, column: left + viewWidth + 1, top: top, height: viewHeight)
        drawFooter(scene, local: local, into: &screen, left: left, row: top + viewHeight, width: totalWidth)
        if scene.showsNetGraph { drawNetGraph(scene.netGraph, into: &screen, left: left + 1, top: top + 1) }
        return screen
    }

    /// The first world column (or row) to show so that `center` is in view.
    static func cameraOrigin(center: Double?, view: Int, world: Int) -> Int {
        guard view < world, let center else { return 0 }
        return min(max(Int(center) - view / 2, 0), world - view)
    }

    /// One of `> v < ^` (and diagonals drawn as the nearer of them) for a heading.
    static func arrow(for heading: Double) -> Character {
        let quarter = Int((heading / (Double.pi / 2)).rounded())
        return [">", "v", "<", "^"][((quarter % 4) + 4) % 4]
    }

    static func healthBar(_ health: Int, width: Int) -> String {
        let filled = max(0, min(width, (health * width + ArenaRules.maximumHealth - 1) / ArenaRules.maximumHealth))
        return String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
    }

    private static func drawScoreboard(_ scene: ArenaScene, into screen: inout ScreenBuffer, column: Int, top: Int, height: Int) {
        screen.write(
            " \(scene.roomName.isEmpty ? "arena" : scene.roomName)".prefix(panelWidth).description, column: column, row: top, color: .white,
            isBold: true)
        screen.write(" name       K  hp", column: column, row: top + 1, color: .grey)
        let ranked = scene.players.sorted { ($1.score, $0.id) < ($0.score, $1.id) }
        for (index, player) in ranked.prefix(max(height - 2, 0)).enumerated() {
            let isLocal = player.id == scene.localPlayerID
            let name = (player.isBot ? "~" : "") + player.name
            let padded = String(name.prefix(10)).rightPadded(to: 10)
            let line = " \(padded) \(String(player.score).leftPadded(to: 2)) \(healthBar(player.health, width: 4))"
            let color: TerminalColor = isLocal ? .green : palette[Int(player.id) % palette.count]
            screen.write(line, column: column, row: top + 2 + index, color: color, isBold: isLocal)
        }
    }

    private static func drawFooter(
        _ scene: ArenaScene, local: ArenaScene.Player?, into screen: inout ScreenBuffer, left: Int, row: Int, width: Int
    ) {
        var status = ""
        if let local {
            status =
                local.health > 0
                ? "HP \(healthBar(local.health, width: 10)) \(String(local.health).leftPadded(to: 3))  kills \(local.score)"
                : "you are down, respawning…  kills \(local.score)"
        } else {
            status = "joining…"
        }
        screen.write(status, column: left, row: row, color: local.map { $0.health > 30 ? .green : .red } ?? .yellow, isBold: true)
        let connection = scene.connectionStatus
        screen.write(connection, column: left + width - connection.count, row: row, color: scene.isConnected ? .green : .yellow)
        screen.write("WASD/arrows move  space fire  e rail  n net graph  q quit", column: left, row: row + 1, color: .grey)
        screen.write(String(scene.notice.prefix(width)), column: left, row: row + 2, color: .cyan)
    }

    private static func drawNetGraph(_ lines: [String], into screen: inout ScreenBuffer, left: Int, top: Int) {
        let width = (lines.map(\.count).max() ?? 0) + 2
        let border = "+" + String(repeating: "-", count: width) + "+"
        screen.write(border, column: left, row: top, color: .white)
        for (index, line) in lines.enumerated() {
            screen.write("| " + line.rightPadded(to: width - 1) + "|", column: left, row: top + 1 + index, color: .white)
        }
        screen.write(border, column: left, row: top + 1 + lines.count, color: .white)
    }
}

extension String {
    /// The string padded with spaces on the left to `width` characters.
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }

    /// The string padded with spaces on the right to `width` characters.
    func rightPadded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
