/// A scripted player for headless play: a list of steps, each an input held for a number
/// of client ticks, parsed from words like `"d5 w3 space _10 sd4"`.
///
/// A word is made of move letters (`w` up, `a` left, `s` down, `d` right, combinable as
/// in `wd` for up-right) and/or `f` for fire and `e` for the rail, then an optional tick count (default 1);
/// `space` fires once; `_N` waits N ticks; `EN` hunts bots with the rail for N ticks: it fires at
/// a bot on one of the player's eight lines in its view, else steps onto the nearest bot's line
/// (``aim(in:map:)``). After the last step the player stands still.
package struct ArenaScript: Hashable, Sendable {
    /// Why a script could not be read.
    package struct ParseError: Error, Hashable, CustomStringConvertible {
        /// The word that could not be read.
        package let word: String
        /// The error in words, with what a script may contain.
        package var description: String {
            "cannot read script word '\(word)': use move letters w a s d, f (fire) and e (rail) with an optional tick count, 'space', _N to wait, or EN to rail a bot in line"
        }
    }

    /// One input and how many ticks it is held.
    package struct Step: Hashable, Sendable {
        /// The input.
        package var input: ArenaInput
        /// Ticks it is held.
        package var ticks: Int
        /// Whether the step aims the rail at a bot in view instead of holding ``input`` (`E`).
        package var aimsAtBots = false
    }

    /// The steps, in order.
    package let steps: [Step]

    /// The most ticks one word may hold its input (about a minute at 30 Hz).
    package static let maximumTicksPerWord = 2_000

    /// Parses a script.
    ///
    /// - Parameter text: Words separated by spaces.
    /// - Throws: ``ParseError`` naming the first word it cannot read.
    package init(_ text: String) throws(ParseError) {
        var steps: [Step] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init) {
            if word == "space" {
                steps.append(Step(input: ArenaInput(moveX: 0, moveY: 0, fires: true), ticks: 1))
                continue
            }
            let letters = word.prefix { $0.isLetter || $0 == "_" }
            let digits = word.dropFirst(letters.count)
            guard !letters.isEmpty, digits.allSatisfy(\.isNumber) else { throw ParseError(word: word) }
            let count = digits.isEmpty ? 1 : (Int(digits) ?? -1)
            guard count >= 1, count <= Self.maximumTicksPerWord else { throw ParseError(word: word) }
            if letters == "_" {
                steps.append(Step(input: .idle, ticks: count))
                continue
            }
            if letters == "E" {
                steps.append(Step(input: .idle, ticks: count, aimsAtBots: true))
                continue
            }
            var moveX = 0, moveY = 0, fires = false, firesRail = false
            for letter in letters {
                switch letter {
                case "w": moveY -= 1
                case "s": moveY += 1
                case "a": moveX -= 1
                case "d": moveX += 1
                case "f": fires = true
                case "e": firesRail = true
                default: throw ParseError(word: word)
                }
            }
            steps.append(Step(input: ArenaInput(moveX: moveX, moveY: moveY, fires: fires, firesRail: firesRail), ticks: count))
        }
        self.steps = steps
    }

    /// The number of ticks the whole script lasts.
    package var duration: Int { steps.reduce(0) { $0 + $1.ticks } }

    /// The input at a tick counted from the script's start (idle after its end).
    ///
    /// - Parameter tick: Ticks since the script started, from 0.
    /// - Returns: The scripted input.
    package func input(atTick tick: Int) -> ArenaInput {
        step(atTick: tick)?.input ?? .idle
    }

    /// The step at a tick counted from the script's start, `nil` after its end.
    ///
    /// - Parameter tick: Ticks since the script started, from 0.
    /// - Returns: The step.
    package func step(atTick tick: Int) -> Step? {
        var remaining = tick
        for step in steps {
            if remaining < step.ticks { return step }
            remaining -= step.ticks
        }
        return nil
    }

    /// The rail aimed at the nearest living bot that stands on one of the local player's eight
    /// lines in `scene` (within a fifth of a tile of it, in sight, at most 30 tiles away): a step
    /// that way, which turns the player to face it, and the rail. The server resolves the shot
    /// against the world as this scene showed it (lag compensation), so a bot on the line is hit
    /// even though it has moved on since. When no bot is in line, a step across the nearest bot's
    /// line to close the smaller of the two offsets (toward it, when it is out of sight).
    ///
    /// - Parameters:
    ///   - scene: What the client showed last.
    ///   - map: The walls.
    /// - Returns: The input.
    package static func aim(in scene: ArenaScene, map: ArenaMap) -> ArenaInput {
        guard let me = scene.players.first(where: { $0.id == scene.localPlayerID }), me.health > 0 else { return .idle }
        var best: (distance: Double, x: Int, y: Int)?
        for bot in scene.players where bot.isBot && bot.health > 0 {
            let dx = bot.x - me.x, dy = bot.y - me.y
            for x in -1...1 {
                for y in -1...1 where x != 0 || y != 0 {
                    let length = (Double(x * x + y * y)).squareRoot()
                    let along = (dx * Double(x) + dy * Double(y)) / length
                    let across = (dx * Double(y) - dy * Double(x)) / length
                    guard along > 0.5, along < 30, abs(across) < 0.2, along < (best?.distance ?? .infinity),
                        map.hasLineOfSight(fromX: me.x, y: me.y, toX: bot.x, y: bot.y)
                    else { continue }
                    best = (along, x, y)
                }
            }
        }
        if let best { return ArenaInput(moveX: best.x, moveY: best.y, fires: false, firesRail: true) }
        func distanceSquared(_ other: ArenaScene.Player) -> Double {
            (other.x - me.x) * (other.x - me.x) + (other.y - me.y) * (other.y - me.y)
        }
        let bots = scene.players.filter { $0.isBot && $0.health > 0 }
        guard let nearest = bots.min(by: { distanceSquared($0) < distanceSquared($1) }) else { return .idle }
        let dx = nearest.x - me.x, dy = nearest.y - me.y
        func sign(_ value: Double) -> Int { value > 0 ? 1 : value < 0 ? -1 : 0 }
        guard map.hasLineOfSight(fromX: me.x, y: me.y, toX: nearest.x, y: nearest.y) else {
            return ArenaInput(moveX: sign(dx), moveY: sign(dy), fires: false)
        }
        return abs(dx) >= abs(dy)
            ? ArenaInput(moveX: 0, moveY: sign(dy), fires: false) : ArenaInput(moveX: sign(dx), moveY: 0, fires: false)
    }
}
